import { describe, it } from 'vitest';
import { loadZstdNapi } from '../../src/util/zstd.js';
import { acceptanceSuite } from './helpers/acceptance-suite.js';

// zstd-stream needs the optional zstd-napi package on the sandbox's side (the only compressor) and here.
if (loadZstdNapi() !== null) {
  acceptanceSuite({ name: 'zstd-stream, zstd-napi', compress: 'zstd-stream', inflate: 'zstd-napi' });
} else {
  describe('gateway acceptance over the sandbox (zstd-stream, zstd-napi)', () => {
    it.skip('needs the optional zstd-napi package, which is not installed here', () => {});
  });
}
