/**
 * The files of a new bot project (`gatehouse init DIR`): an ESM package depending on gatehouse, a TypeScript
 * plugin and its test with the test kit, and a Dockerfile and compose file for the bot's own image. Kept
 * small: the README of the project points at gatehouse's documentation for the rest.
 */
export interface InitInput {
  /** The package name (the folder's name, made npm-safe). */
  name: string;
  /** What package.json depends on for gatehouse: a version range, or a tarball or path (`file:...`). */
  gatehouse: string;
}

export function initFiles(input: InitInput): ReadonlyMap<string, string> {
  const pkg = {
    name: input.name,
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: { node: '>=20.6' },
    scripts: { start: 'gatehouse start', dev: 'gatehouse dev', check: 'gatehouse check', test: 'vitest run' },
    dependencies: { gatehouse: input.gatehouse },
    devDependencies: { '@types/node': '^20.19.0', typescript: '~5.9.3', vitest: '^4.1.0' },
  };
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node'],
    },
    include: ['plugins', 'test'],
  };
  return new Map([
    ['package.json', `${JSON.stringify(pkg, null, 2)}\n`],
    ['tsconfig.json', `${JSON.stringify(tsconfig, null, 2)}\n`],
    ['plugins/hello.ts', HELLO],
    ['test/hello.test.ts', HELLO_TEST],
    ['.gitignore', 'node_modules/\ndist/\nconfig/local.json\n.env\n'],
    ['.dockerignore', 'node_modules/\n.git/\nconfig/local.json\n.env\n'],
    ['Dockerfile', DOCKERFILE],
    ['compose.yaml', COMPOSE],
    ['README.md', readme(input.name)],
  ]);
}

const HELLO = `import { definePlugin } from 'gatehouse';

export default definePlugin({
  name: 'hello',
  commands: [
    {
      name: 'hello',
      description: 'Say hello',
      options: [{ type: 3, name: 'who', description: 'Whom to greet' }],
      run: (ctx) => ctx.reply(\`Hello, \${ctx.options.who ?? 'world'}!\`),
    },
  ],
});
`;

const HELLO_TEST = `import { afterEach, expect, it } from 'vitest';
import { testKit } from 'gatehouse/testing';
import hello from '../plugins/hello.js';

const kit = testKit(afterEach);

it('greets whom it is asked to', async () => {
  const bot = await kit.startBot({ plugins: [hello] });
  const reply = await bot.invoke('hello', { options: { who: 'you' } });
  expect(reply.content).toBe('Hello, you!');
});
`;

// The bot's own image: production dependencies only (tsx, a dependency of gatehouse, loads the TypeScript
// plugins), and gatehouse refuses to start without DISCORD_TOKEN when NODE_ENV is production.
const DOCKERFILE = `FROM node:20-slim
WORKDIR /bot
ENV NODE_ENV=production
COPY package*.json ./
RUN npm install --omit=dev --no-audit --no-fund
COPY plugins ./plugins
COPY config ./config
USER node
CMD ["node", "node_modules/.bin/gatehouse", "start"]
`;

const COMPOSE = `services:
  bot:
    build: .
    environment:
      DISCORD_TOKEN: \${DISCORD_TOKEN:?set DISCORD_TOKEN}
    restart: unless-stopped
`;

function readme(name: string): string {
  return `# ${name}

A bot on [gatehouse](https://www.npmjs.com/package/gatehouse).

    npm install
    npm start        # the bot on a local sandbox (no token needed); with DISCORD_TOKEN set, on the real service
    npm run dev      # the same, reloading plugins as you save
    npm test         # plugins/hello.ts tested with gatehouse/testing
    npm run check    # the plugins checked offline, type check included

Plugins live in \`plugins/\`. Settings go in \`config/local.json\` or the environment. In a container:
\`DISCORD_TOKEN=... docker compose up --build\`.
`;
}
