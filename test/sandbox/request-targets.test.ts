/**
 * Request targets the sandbox's HTTP server cannot read as a URL (absolute-form with a bad port or host, which
 * Node's parser lets through): each gets a 400 and the server keeps answering, for plain requests and for
 * WebSocket upgrades alike. Over real sockets, raw request lines.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';

let sandbox: Sandbox;
let port: number;

beforeAll(async () => {
  sandbox = await createSandbox({ seed: { guilds: 1, membersPerGuild: 2 } });
  port = Number(new URL(sandbox.restUrl).port);
});

afterAll(async () => {
  await sandbox?.close();
});

/** Send raw request head bytes; resolve with the status line of the answer (or '' when the socket closes without one). */
function rawRequest(head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    let data = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer within 5 s'));
    }, 5_000);
    socket.on('data', (chunk: Buffer) => (data += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(data.split('\r\n', 1)[0] ?? '');
    });
  });
}

describe('request targets that are not URLs', () => {
  for (const target of ['http://a:b/api/v10/gateway', 'http://[/_sandbox', '//[/api']) {
    it(`answers 400 to ${target} and goes on answering`, async () => {
      expect(await rawRequest(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)).toBe('HTTP/1.1 400 Bad Request');
      const ok = await fetch(`${sandbox.adminUrl}/counters`);
      expect(ok.status).toBe(200);
    });
  }

  it('refuses an upgrade to such a target and goes on answering', async () => {
    const head =
      'GET http://a:b/gateway HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
      'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n';
    expect(await rawRequest(head)).toBe('HTTP/1.1 400 Bad Request');
    expect((await fetch(`${sandbox.adminUrl}/counters`)).status).toBe(200);
  });
});
