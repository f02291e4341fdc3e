// A backtracking regexp (a backreference forces the backtracking engine) on a non-matching input.
// expect: timeout
// timeout: 10s
// within: 5s
// worker timeout: 1s
// worker why: lean leaves regexp2 without its match timeout (a match that hit it would read as "no match"), so the deadline ends the match and the worker is replaced
return /^(a|aa)+\1$/.test('a'.repeat(60) + 'b');
