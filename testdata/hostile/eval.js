// eval does not exist.
// expect: runtime_error
return eval('1 + 1');
