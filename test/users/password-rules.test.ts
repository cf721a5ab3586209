import { describe, expect, it } from 'vitest';
import { isCommonPassword, passwordProblem } from '#shared/users/password-rules.ts';

const user = { email: 'Alice@Example.com', username: 'alice.w' };

describe('password rules (docs/contract.md §7.2)', () => {
  it('accepts a long, uncommon password', () => {
    expect(passwordProblem('violet-harbour-31-kettle', user)).toBeUndefined();
    expect(passwordProblem(`${'x'.repeat(7)}y`, {})).toBeUndefined();
  });

  it('refuses fewer than 8 and more than 128 characters, counting code points', () => {
    expect(passwordProblem('a1b2c3d', user)).toBe('must be at least 8 characters long.');
    expect(passwordProblem('q'.repeat(129), user)).toBe('must be at most 128 characters long.');
    expect(passwordProblem('q'.repeat(128), user)).toBeUndefined();
    // 4 emoji are 8 UTF-16 units but 4 characters.
    expect(passwordProblem('🔑🔒🗝🚪', user)).toBe('must be at least 8 characters long.');
    expect(passwordProblem('🔑'.repeat(128), user)).toBeUndefined();
  });

  it('refuses the email or the username, whatever the case', () => {
    expect(passwordProblem('alice@example.com', user)).toBe('must not be the email address.');
    expect(passwordProblem('ALICE.W1', { username: 'alice.w1' })).toBe('must not be the username.');
  });

  it('refuses common passwords from the shipped list, whatever the case, and never repeats the password', () => {
    for (const p of ['password', 'Password1', '12345678', 'qwertyuiop', 'iloveyou', 'TRUSTNO1', 'football']) {
      const problem = passwordProblem(p, user);
      expect(problem, p).toBe('is too common; choose another one.');
      expect(problem).not.toContain(p.toLowerCase());
    }
    expect(isCommonPassword('password1')).toBe(true);
    expect(isCommonPassword('violet-harbour-31-kettle')).toBe(false);
  });
});
