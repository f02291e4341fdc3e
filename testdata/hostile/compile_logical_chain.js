// Constant folding of 0||0||… doubles with every operator: 40 of them would compile for days.
// expect: limit_exceeded
return 0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||0||1
