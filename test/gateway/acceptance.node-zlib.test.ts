import { acceptanceSuite } from './helpers/acceptance-suite.js';

// Messages split into frames of at most 97 bytes, so most of them span several frames.
acceptanceSuite({ name: 'zlib-stream, node:zlib, split frames', compress: true, inflate: 'node:zlib', maxFrameBytes: 97 });
