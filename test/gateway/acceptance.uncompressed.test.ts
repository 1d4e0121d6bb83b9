import { acceptanceSuite } from './helpers/acceptance-suite.js';

acceptanceSuite({ name: 'no transport compression', compress: false, inflate: 'auto' });
