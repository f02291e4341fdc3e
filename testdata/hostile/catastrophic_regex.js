// A backtracking regexp (a backreference forces the backtracking engine) on a non-matching input.
// expect: timeout
// timeout: 10s
// within: 5s
return /^(a|aa)+\1$/.test('a'.repeat(40) + 'b');
