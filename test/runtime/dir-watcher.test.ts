/**
 * The dev loop's directory watcher on a real file system: every kind of save is reported, however the file got
 * there before (written in place, replaced by rename as `sed -i` and many editors do), and directories that
 * appear later are watched too. Each wait is for the event itself, bounded at 10 s.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DirWatcher } from '../../src/runtime/dir-watcher.js';

let root: string;
let watcher: DirWatcher;
let seen: string[];
let waiting: Array<{ path: string; resolve: () => void }>;
const errors: string[] = [];

/** Resolves once a change of `path` is reported after this call (bounded). */
function changeOf(path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no change of ${path} reported in 10 s; seen: ${seen.join(', ')}`)), 10_000);
    waiting.push({ path, resolve: () => (clearTimeout(timer), resolve()) });
  });
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gatehouse-watch-'));
  seen = [];
  waiting = [];
  errors.length = 0;
  writeFileSync(join(root, 'hello.ts'), 'v1');
  mkdirSync(join(root, 'word'));
  writeFileSync(join(root, 'word', 'index.ts'), 'v1');
  watcher = new DirWatcher([root], {
    onChange: (path) => {
      seen.push(path);
      for (const w of waiting.filter((x) => x.path === path)) w.resolve();
      waiting = waiting.filter((x) => x.path !== path);
    },
    onError: (dir, err) => errors.push(`${dir}: ${err.message}`),
  });
  watcher.start();
});

afterEach(() => {
  watcher.close();
  rmSync(root, { recursive: true, force: true });
});

describe('DirWatcher', () => {
  it('reports in-place writes after the file was replaced by rename, again and again', async () => {
    const file = join(root, 'hello.ts');
    for (let round = 0; round < 3; round++) {
      let changed = changeOf(file);
      writeFileSync(join(root, `sed${round}`), `renamed ${round}`);
      renameSync(join(root, `sed${round}`), file);
      await changed;
      changed = changeOf(file);
      writeFileSync(file, `in place ${round}`);
      await changed;
    }
    expect(errors).toEqual([]);
  });

  it('reports the same in a folder plugin', async () => {
    const file = join(root, 'word', 'index.ts');
    let changed = changeOf(file);
    writeFileSync(join(root, 'word', 'tmp'), 'renamed');
    renameSync(join(root, 'word', 'tmp'), file);
    await changed;
    changed = changeOf(file);
    writeFileSync(file, 'in place');
    await changed;
  });

  it('watches directories that appear later, and lets go of those that are removed', async () => {
    const made = changeOf(join(root, 'later'));
    mkdirSync(join(root, 'later'));
    await made;
    expect(watcher.directories).toContain(join(root, 'later'));
    const file = join(root, 'later', 'index.ts');
    let changed = changeOf(file);
    writeFileSync(file, 'v1');
    await changed;
    changed = changeOf(file);
    writeFileSync(file, 'v2');
    await changed;

    const gone = changeOf(join(root, 'later'));
    rmSync(join(root, 'later'), { recursive: true });
    await gone;
    expect(watcher.directories).not.toContain(join(root, 'later'));
    const removed = changeOf(join(root, 'hello.ts'));
    unlinkSync(join(root, 'hello.ts'));
    await removed;
  });

  it('ignores node_modules and hidden folders', () => {
    mkdirSync(join(root, 'node_modules', 'zod'), { recursive: true });
    mkdirSync(join(root, '.git'));
    const other = new DirWatcher([root], { onChange: () => undefined, onError: () => undefined });
    other.start();
    try {
      expect(other.directories.sort()).toEqual([root, join(root, 'word')].sort());
    } finally {
      other.close();
    }
  });
});
