/**
 * Watching plugin directories for the dev loop: one non-recursive `fs.watch` per directory, armed for every
 * subdirectory as it appears and closed as it goes.
 *
 * Why not `fs.watch(dir, { recursive: true })`: on Linux, Node 20 emulates it with one watch per file, and a
 * file watch follows the file's inode. A file replaced by rename (`sed -i`, editors that save atomically) leaves
 * that watch on the old, deleted inode, and every later in-place write to the new file goes unreported: nothing
 * reloads and nothing says so. A directory's own watch reports its entries by name, whatever inode they have
 * now, so it survives both kinds of save.
 */
import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join, sep } from 'node:path';

export interface DirWatcherOptions {
  /** A path under a watched directory was created, written, renamed or removed. */
  onChange: (path: string) => void;
  /** A directory could not be watched (or its watch failed); the others keep working. */
  onError: (dir: string, err: Error) => void;
  /** Subdirectory levels below each root that are watched. Default 8. */
  maxDepth?: number;
  /** At most this many directories are watched in all (each holds an inotify watch). Default 2000. */
  maxDirs?: number;
}

/** Directories never watched, nor reported: dependencies, version control, hidden folders. */
function ignoredName(name: string): boolean {
  return name === 'node_modules' || name.startsWith('.');
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export class DirWatcher {
  private readonly watches = new Map<string, FSWatcher>();
  private readonly maxDepth: number;
  private readonly maxDirs: number;
  private closed = false;
  private warnedFull = false;

  constructor(
    private readonly roots: readonly string[],
    private readonly options: DirWatcherOptions,
  ) {
    this.maxDepth = options.maxDepth ?? 8;
    this.maxDirs = options.maxDirs ?? 2000;
  }

  /** Arm a watch on each root that exists and on every directory below it. */
  start(): void {
    for (const root of this.roots) if (isDirectory(root)) this.arm(root, 0);
  }

  /** The directories watched now (for tests and diagnostics). */
  get directories(): string[] {
    return [...this.watches.keys()];
  }

  close(): void {
    this.closed = true;
    for (const w of this.watches.values()) w.close();
    this.watches.clear();
  }

  private arm(dir: string, depth: number): void {
    if (this.closed || this.watches.has(dir) || depth > this.maxDepth) return;
    if (this.watches.size >= this.maxDirs) {
      if (!this.warnedFull) this.options.onError(dir, new Error(`not watched: ${this.maxDirs} directories are watched already`));
      this.warnedFull = true;
      return;
    }
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { persistent: true }, (_event, name) => this.onEvent(dir, depth, typeof name === 'string' ? name : null));
    } catch (err) {
      // Removed between the listing and the watch: its parent's watch reports that.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.options.onError(dir, err as Error);
      return;
    }
    watcher.on('error', (err) => {
      this.disarm(dir);
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && (err as NodeJS.ErrnoException).code !== 'EPERM') this.options.onError(dir, err);
    });
    this.watches.set(dir, watcher);
    this.armChildren(dir, depth);
  }

  private armChildren(dir: string, depth: number): void {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.isDirectory() && !ignoredName(entry.name)) this.arm(join(dir, entry.name), depth + 1);
    }
  }

  /** Close the watch of a directory that went away, and of everything below it. */
  private disarm(dir: string): void {
    for (const [path, w] of this.watches) {
      if (path !== dir && !path.startsWith(`${dir}${sep}`)) continue;
      w.close();
      this.watches.delete(path);
    }
  }

  private onEvent(dir: string, depth: number, name: string | null): void {
    if (this.closed) return;
    if (name === null) {
      // The platform did not say which entry: look at the directory again.
      this.armChildren(dir, depth);
      this.options.onChange(dir);
      return;
    }
    if (ignoredName(name)) return;
    const path = join(dir, name);
    // A directory that appeared (created, or moved in) gets its own watch; one that went away loses it.
    if (isDirectory(path)) this.arm(path, depth + 1);
    else if (this.watches.has(path)) this.disarm(path);
    this.options.onChange(path);
  }
}
