// The tools object and its namespaces are frozen; assigning to them throws.
// expect: success
const attempts = [
  () => { tools.makeThing = async () => ({ id: 'fake' }); },
  () => { delete tools.makeThing; },
  () => { tools.board.getState = () => 1; },
  () => { Object.defineProperty(tools, 'x', { value: 1 }); },
  () => { Object.setPrototypeOf(tools, null); },
];
const failed = attempts.map((f) => { try { f(); return false; } catch (e) { return true; } });
if (failed.some((b) => !b)) throw new Error('tampering worked: ' + failed);
return (await tools.makeThing({ name: 'real' })).id;
