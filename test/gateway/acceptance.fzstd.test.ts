import { describe, it } from 'vitest';
import { loadZstdNapi } from '../../src/util/zstd.js';
import { acceptanceSuite } from './helpers/acceptance-suite.js';

// The pure-JS decoder against the sandbox, whose zstd-stream compressor needs the optional zstd-napi package.
if (loadZstdNapi() !== null) {
  acceptanceSuite({ name: 'zstd-stream, fzstd', compress: 'zstd-stream', inflate: 'fzstd' });
} else {
  describe('gateway acceptance over the sandbox (zstd-stream, fzstd)', () => {
    it.skip('the sandbox compresses zstd-stream only with the optional zstd-napi package, which is not installed here', () => {});
  });
}
