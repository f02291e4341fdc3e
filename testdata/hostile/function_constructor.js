// Every path to a Function constructor throws.
// expect: success
const tries = [
  () => Function('return 1')(),
  () => new Function('return 1')(),
  () => (function () {}).constructor('return 1')(),
  () => (async function () {}).constructor('return 1')(),
  () => (function* () {}).constructor('return 1')(),
  () => Object.getPrototypeOf(() => 1).constructor('return 1')(),
  () => Reflect.construct(Function, ['return 1']),
];
const blocked = tries.map((f) => { try { f(); return false; } catch (e) { return e instanceof TypeError; } });
if (blocked.some((b) => !b)) throw new Error('a constructor ran: ' + blocked);
return (() => 1) instanceof Function;
