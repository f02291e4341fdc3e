// Tampering with builtins only harms the script itself; tool calls, results and errors still work.
// expect: success
Object.prototype.then = undefined;
JSON.parse = () => { throw new Error('hijacked parse'); };
JSON.stringify = () => '{"hijacked":true}';
Array.prototype.map = () => [];
Promise.prototype.then = function () { throw new Error('hijacked then'); };
Error.prototype.toString = () => 'hijacked';
const made = await tools.makeThing({ name: 'still works' });
let code;
try { await tools.fail({}); } catch (e) { code = e.code; }
return { id: made.id, code };
