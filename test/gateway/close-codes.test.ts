import { describe, expect, it } from 'vitest';
import { CLIENT_CLOSE, closePolicy, FATAL_CLOSE_CODES, isFatalCloseCode } from '../../src/gateway/close-codes.js';

describe('close code policy', () => {
  it('treats exactly 4004, 4010, 4011, 4012, 4013, 4014 as fatal', () => {
    expect([...FATAL_CLOSE_CODES].sort()).toEqual([4004, 4010, 4011, 4012, 4013, 4014]);
    for (let code = 4000; code <= 4014; code++) {
      expect(isFatalCloseCode(code)).toBe([4004, 4010, 4011, 4012, 4013, 4014].includes(code));
    }
  });

  it('identifies anew after 4003, 4007 and 4009', () => {
    for (const code of [4003, 4007, 4009]) expect(closePolicy(code).action).toBe('identify');
  });

  it('resumes after the other codes, unknown ones and abnormal closes', () => {
    for (const code of [1000, 1001, 1006, 1011, 4000, 4001, 4002, 4005, 4008, 4999]) {
      expect(closePolicy(code).action).toBe('resume');
    }
  });

  it('explains every fatal code', () => {
    for (const code of FATAL_CLOSE_CODES) {
      expect(closePolicy(code).name.length).toBeGreaterThan(3);
      expect(closePolicy(code).hint.length).toBeGreaterThan(10);
    }
  });

  it('never closes with 1000/1001 unless the session should end', () => {
    for (const [name, code] of Object.entries(CLIENT_CLOSE)) {
      if (name === 'normal') expect(code).toBe(1000);
      else {
        expect(code).toBeGreaterThanOrEqual(4000);
        expect(code).toBeLessThan(5000);
      }
    }
  });
});
