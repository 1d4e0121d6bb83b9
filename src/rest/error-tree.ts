import { isObject } from '../util/is-object.js';
/**
 * The service's validation errors (code 50035 and friends) come as a tree that mirrors the request body:
 * object keys for fields, numeric keys for array indexes, and `_errors` leaves. People read paths, not
 * trees, so the tree is flattened into one line per problem: `options[0].name: This field is required
 * (BASE_TYPE_REQUIRED)`. The path syntax matches the one `commands validate` prints.
 */

export interface FieldError {
  /** `options[0].name`, `[2].description`, or `(body)` for an error about the whole request. */
  path: string;
  code: string;
  message: string;
}

const MAX_DEPTH = 32;
const MAX_LINES = 200;

function joinPath(parent: string, key: string): string {
  if (/^\d+$/.test(key)) return `${parent}[${key}]`;
  return parent === '' ? key : `${parent}.${key}`;
}

/** Walk an `errors` tree (untrusted input) and collect its leaves in document order. */
export function flattenErrorTree(tree: unknown): FieldError[] {
  const out: FieldError[] = [];
  const walk = (node: unknown, path: string, depth: number): void => {
    if (!isObject(node) || depth > MAX_DEPTH || out.length >= MAX_LINES) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '_errors') {
        if (!Array.isArray(value)) continue;
        for (const item of value) {
          if (out.length >= MAX_LINES) return;
          const code = isObject(item) && item.code !== undefined ? String(item.code) : 'UNKNOWN';
          const message = isObject(item) && typeof item.message === 'string' ? item.message : 'invalid';
          out.push({ path: path === '' ? '(body)' : path, code, message });
        }
      } else {
        walk(value, joinPath(path, key), depth + 1);
      }
    }
  };
  walk(tree, '', 0);
  return out;
}

export function formatFieldError(e: FieldError): string {
  return `${e.path}: ${e.message} (${e.code})`;
}
