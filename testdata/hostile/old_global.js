// The global object goja starts with still holds the binary buffers, Proxy, BigInt and eval: the sandbox gives
// scripts a new one instead. Walk everything reachable — own properties, prototypes, what the roots a script can
// make without globals lead to — and look for that object or any of those constructors.
// expect: success
const removed = ['eval', 'ArrayBuffer', 'SharedArrayBuffer', 'DataView', 'Atomics', 'Int8Array', 'Uint8Array',
  'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array',
  'BigInt64Array', 'BigUint64Array', 'Proxy', 'BigInt'];
const sloppyThis = [];
for (const f of [function () { return this; }, () => this]) {
  sloppyThis.push(f(), Reflect.apply(f, undefined, []), [1].map(f)[0], f.call(null));
}
if (sloppyThis.some((v) => v != null)) throw new Error('a function saw a this: ' + sloppyThis.map(String));
if (globalThis.globalThis !== globalThis) throw new Error('globalThis.globalThis is another object');
const roots = [globalThis, {}, [], '', 0, true, /x/, Symbol.iterator, new Map(), new Set(), new WeakMap(), new WeakSet(),
  new Date(0), new Error('e'), Promise.resolve(), function () {}, async function () {}, function* () {}, () => {},
  [][Symbol.iterator](), new Map().entries(), new Set().values(), ''[Symbol.iterator](), /x/[Symbol.matchAll](''),
  (function* () {})(), (async () => {})(), arguments, Object.getOwnPropertyNames, JSON, Math, Reflect, console, tools];
const seen = new Set();
const queue = roots.map((v) => Object(v));
const found = [];
while (queue.length > 0) {
  const o = queue.pop();
  if (seen.has(o)) continue;
  seen.add(o);
  const proto = Object.getPrototypeOf(o);
  if (proto !== null) queue.push(proto);
  for (const k of Reflect.ownKeys(o)) {
    if (removed.includes(k)) found.push(String(k));
    const d = Reflect.getOwnPropertyDescriptor(o, k);
    for (const v of [d.value, d.get, d.set]) {
      if ((typeof v === 'object' && v !== null) || typeof v === 'function') queue.push(v);
    }
  }
  if (typeof o === 'function' && removed.includes(o.name)) found.push(o.name);
  // The species of every constructor reached.
  if (typeof o === 'function') {
    try {
      const s = o[Symbol.species];
      if (typeof s === 'function') queue.push(s);
    } catch (e) { /* a getter that wants another this */ }
  }
}
if (found.length) throw new Error('reachable: ' + found);
try {
  Object.getPrototypeOf(async function () {}).constructor('return this')();
  throw new Error('the async function constructor made code from a string');
} catch (e) {
  if (!(e instanceof TypeError)) throw e;
}
return seen.size > 500 ? 'isolated' : 'walked too little: ' + seen.size;
