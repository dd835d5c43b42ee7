import { describe, expect, it } from 'vitest';
import { commonPrefix, maskHomePaths, signatureOf } from '../../pipeline/stages/signature.js';

describe('error signatures', () => {
  it.each([
    ["fatal: Unable to create '/repo/.git/index.lock': File exists.", "fatal: Unable to create '/repo/.git/index.lock': File exists."],
    ['Exit code 127\nsh: 1: vitest: not found', 'sh: 1: vitest: not found'],
    ['<tool_use_error>File has not been read yet.</tool_use_error>', 'File has not been read yet.'],
    ['============================= test session starts ==============================\nplatform linux\ncollected 3 items\nE   AssertionError: boom\nFAILED tests/test_a.py::test_x', 'FAILED tests/test_a.py::test_x'],
    ['Traceback (most recent call last):\n  File "x.py", line 3, in <module>\n    import foo\nModuleNotFoundError: No module named \'foo\'', "ModuleNotFoundError: No module named 'foo'"],
    ['Welcome to the quickstart utility.\nError: invalid value for --sep', 'Error: invalid value for --sep'],
    ['', null],
  ])('%j → %j', (message, expected) => {
    expect(signatureOf(message)).toBe(expected);
  });

  it('masks home directories, which name a person', () => {
    expect(maskHomePaths("open '/Users/alice/src/app/x.ts' and /home/bob/y and C:\\Users\\carol\\z")).toBe("open '~/src/app/x.ts' and ~/y and ~\\z");
    expect(signatureOf('ENOENT: no such file or directory, open /home/alice/app/x.ts')).toBe('ENOENT: no such file or directory, open ~/app/x.ts');
  });

  it('finds the words failures have in common, or nothing', () => {
    expect(commonPrefix(['ENOENT: no such file or directory, open ~/a.ts', 'ENOENT: no such file or directory, open ~/b.ts'])).toBe('ENOENT: no such file or directory, open …');
    expect(commonPrefix(['a b', 'a c'])).toBeNull();
  });
});
