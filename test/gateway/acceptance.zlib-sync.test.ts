import { acceptanceSuite } from './helpers/acceptance-suite.js';

acceptanceSuite({ name: 'zlib-stream, zlib-sync', compress: true, inflate: 'zlib-sync' });
