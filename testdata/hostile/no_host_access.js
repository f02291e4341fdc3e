// Nothing of the host is reachable.
// expect: success
const names = ['require', 'process', 'setTimeout', 'setInterval', 'queueMicrotask', 'fetch', 'XMLHttpRequest',
  'eval', 'ArrayBuffer', 'SharedArrayBuffer', 'Uint8Array', 'DataView', 'WebAssembly', 'importScripts', 'Deno', 'Bun'];
const found = names.filter((n) => typeof globalThis[n] !== 'undefined');
if (found.length) throw new Error('reachable: ' + found);
return 'isolated';
