// The array methods for what goja's own cannot be trusted with: a `this`
// that is not an Array (an array-like, whose length may be a getter, an
// object, or 2**53 - 1) or an Array over the sandbox's size limit, concat
// with such items, and every Array.from (arraylike.go decides). Each
// function follows its algorithm in ECMA-262 step by step: length is read
// once, properties are read, tested and written in the order the spec
// gives, so getters, setters and valueOf see what they would in any
// engine. Being JavaScript, every loop here is reached by the interrupt and
// counted by the heap watchdog, where goja's native loop over a length of
// 2**53 - 1 runs in Go, deaf to both.
//
// Compiled once per process; a run calls it the first time it needs one of
// these methods, with the host's helpers (h) and the well-known symbols.
// Nothing here reads a global or a prototype the script can change: calls,
// property definitions, array creation and errors go through h.
(function (h, symIterator, symSpecies, symSpreadable, maxElems, arrayCtor) {
  "use strict";
  // call(f, thisArg, ...args). A callback without a thisArg is called
  // directly instead: in strict code f(a, b) is Call(f, undefined, «a, b»),
  // and it saves a trip through Go per element.
  const call = h.call;
  const isCtor = h.isConstructor;
  const isArray = h.isArray;
  const createData = h.createData; // CreateDataPropertyOrThrow(o, key, value)
  const build = h.build; // build(list, len): list, now an Array of length len
  const typeError = h.typeError;
  const rangeError = h.rangeError;
  const tooMany = h.tooMany; // ends the run with memory_limit
  const joinParts = h.joinParts; // joinParts(list, n, sep): list[0] + sep + ... + list[n-1]
  const MAX = 9007199254740991; // 2**53 - 1

  const isObject = (v) => (typeof v === "object" && v !== null) || typeof v === "function";
  const isCallable = (v) => typeof v === "function";
  // ToIntegerOrInfinity, without Math (the script may have replaced it).
  const toInt = (v) => {
    const n = +v;
    if (n !== n || n === 0) return 0;
    if (n === Infinity || n === -Infinity) return n;
    const t = n - (n % 1);
    return t === 0 ? 0 : t;
  };
  const toLength = (v) => {
    const n = toInt(v);
    return n <= 0 ? 0 : n > MAX ? MAX : n;
  };
  const lengthOf = (o) => toLength(o.length);
  // A relative index (start, end) clamped to [0, len].
  const relative = (v, len) => {
    const r = toInt(v);
    if (r < 0) return len + r < 0 ? 0 : len + r;
    return r < len ? r : len;
  };
  const needCallable = (f) => {
    if (!isCallable(f)) typeError(`${typeof f === "object" ? (f === null ? "null" : "object") : typeof f} is not a function`);
  };
  // A list of our own: an Array without a prototype, so no setter or getter
  // a script put on Array.prototype or Object.prototype sees it.
  const list = h.list;

  // Results. The spec makes most results with ArrayCreate and defines
  // their elements one by one (CreateDataPropertyOrThrow); nothing can see
  // such an Array before it is returned (no callback is given it), so it is
  // kept as a list here and made an Array in one step at the end (build),
  // instead of a trip through Go per element. arrayCreate checks the length
  // as ArrayCreate does and returns the list.
  const arrayCreate = (len) => {
    if (len > 4294967295) rangeError("Invalid array length");
    return list();
  };
  // ArraySpeciesCreate(original, length): the species constructor's object,
  // or undefined where the spec makes ArrayCreate(length) (checked here),
  // which the caller keeps as a list.
  const speciesCreate = (original, length) => {
    if (isArray(original)) {
      let C = original.constructor;
      if (isObject(C)) {
        C = C[symSpecies];
        if (C === null) C = undefined;
      }
      if (C !== undefined) {
        if (!isCtor(C)) typeError("object.constructor[Symbol.species] is not a constructor");
        return new C(length);
      }
    }
    arrayCreate(length);
    return undefined;
  };
  // define is CreateDataPropertyOrThrow on a result: S is what
  // speciesCreate answered, A the list or S.
  const define = (S, A, k, v) => {
    if (S === undefined) A[k] = v;
    else createData(A, k, v);
  };

  // SortCompare with the default order (undefined last, then by ToString
  // in UTF-16 code units) or the script's comparator.
  const sortCompare = (comparefn) => (x, y) => {
    if (x === undefined && y === undefined) return 0;
    if (x === undefined) return 1;
    if (y === undefined) return -1;
    if (comparefn !== undefined) {
      const v = +comparefn(x, y);
      return v !== v ? 0 : v;
    }
    const xs = `${x}`;
    const ys = `${y}`;
    return xs < ys ? -1 : ys < xs ? 1 : 0;
  };
  // A stable merge sort of items[0..n), bottom-up (no recursion).
  const mergeSort = (items, n, cmp) => {
    let src = items;
    let dst = list();
    for (let width = 1; width < n; width *= 2) {
      for (let lo = 0; lo < n; lo += 2 * width) {
        const mid = lo + width < n ? lo + width : n;
        const hi = lo + 2 * width < n ? lo + 2 * width : n;
        let i = lo;
        let j = mid;
        let k = lo;
        while (i < mid && j < hi) {
          if (cmp(src[j], src[i]) < 0) dst[k++] = src[j++];
          else dst[k++] = src[i++];
        }
        while (i < mid) dst[k++] = src[i++];
        while (j < hi) dst[k++] = src[j++];
      }
      const t = src;
      src = dst;
      dst = t;
    }
    return src;
  };

  // FlattenIntoArray.
  const flatten = (S, target, source, sourceLen, start, depth, mapper, thisArg) => {
    let targetIndex = start;
    for (let sourceIndex = 0; sourceIndex < sourceLen; sourceIndex++) {
      if (!(sourceIndex in source)) continue;
      let element = source[sourceIndex];
      if (mapper !== undefined) element = thisArg === undefined ? mapper(element, sourceIndex, source) : call(mapper, thisArg, element, sourceIndex, source);
      if (depth > 0 && isArray(element)) {
        targetIndex = flatten(S, target, element, lengthOf(element), targetIndex, depth === Infinity ? Infinity : depth - 1);
      } else {
        if (targetIndex >= MAX) typeError("the array would be longer than 2**53 - 1");
        define(S, target, targetIndex, element);
        targetIndex++;
      }
    }
    return targetIndex;
  };

  // IteratorClose after a throw: the throw wins over anything return does.
  const closeAfterThrow = (iterator) => {
    try {
      const ret = iterator.return;
      if (ret !== undefined && ret !== null) call(ret, iterator);
    } catch (_) {
      // the original exception is rethrown by the caller
    }
  };

  const methods = {
    at(index) {
      const O = this;
      const len = lengthOf(O);
      const rel = toInt(index);
      const k = rel >= 0 ? rel : len + rel;
      if (k < 0 || k >= len) return undefined;
      return O[k];
    },

    concat(...items) {
      const O = this;
      const S = speciesCreate(O, 0);
      const A = S === undefined ? list() : S;
      let n = 0;
      for (let i = -1; i < items.length; i++) {
        const E = i < 0 ? O : items[i];
        let spreadable = false;
        if (isObject(E)) {
          const s = E[symSpreadable];
          spreadable = s !== undefined ? !!s : isArray(E);
        }
        if (spreadable) {
          const len = lengthOf(E);
          if (n + len > MAX) typeError("the array would be longer than 2**53 - 1");
          // An Array's length is data, and the copy makes an element per
          // index: over the size limit it ends the run now, as goja's
          // concat would have allocated it all (an array-like stays lazy:
          // its getters may throw first).
          if (isArray(E) && n + len > maxElems) tooMany(n + len, "Array.prototype.concat");
          for (let k = 0; k < len; k++, n++) {
            if (k in E) define(S, A, n, E[k]);
          }
        } else {
          if (n >= MAX) typeError("the array would be longer than 2**53 - 1");
          define(S, A, n, E);
          n++;
        }
      }
      if (S === undefined) return build(A, n);
      A.length = n;
      return A;
    },

    copyWithin(target, start, end) {
      const O = this;
      const len = lengthOf(O);
      let to = relative(target, len);
      let from = relative(start, len);
      const final = end === undefined ? len : relative(end, len);
      let count = final - from < len - to ? final - from : len - to;
      let direction = 1;
      if (from < to && to < from + count) {
        direction = -1;
        from += count - 1;
        to += count - 1;
      }
      for (; count > 0; count--) {
        if (from in O) O[to] = O[from];
        else delete O[to];
        from += direction;
        to += direction;
      }
      return O;
    },

    every(callbackfn, thisArg) {
      const O = this;
      const len = lengthOf(O);
      needCallable(callbackfn);
      for (let k = 0; k < len; k++) {
        if (k in O && !(thisArg === undefined ? callbackfn(O[k], k, O) : call(callbackfn, thisArg, O[k], k, O))) return false;
      }
      return true;
    },

    fill(value, start, end) {
      const O = this;
      const len = lengthOf(O);
      let k = relative(start, len);
      const final = end === undefined ? len : relative(end, len);
      if (final - k > maxElems) tooMany(final - k, "Array.prototype.fill");
      for (; k < final; k++) O[k] = value;
      return O;
    },

    filter(callbackfn, thisArg) {
      const O = this;
      const len = lengthOf(O);
      needCallable(callbackfn);
      const S = speciesCreate(O, 0);
      const A = S === undefined ? list() : S;
      let to = 0;
      for (let k = 0; k < len; k++) {
        if (!(k in O)) continue;
        const v = O[k];
        if (thisArg === undefined ? callbackfn(v, k, O) : call(callbackfn, thisArg, v, k, O)) define(S, A, to++, v);
      }
      return S === undefined ? build(A, to) : A;
    },

    find(predicate, thisArg) {
      const O = this;
      const len = lengthOf(O);
      needCallable(predicate);
      for (let k = 0; k < len; k++) {
        const v = O[k];
        if (thisArg === undefined ? predicate(v, k, O) : call(predicate, thisArg, v, k, O)) return v;
      }
      return undefined;
    },

    findIndex(predicate, thisArg) {
      const O = this;
      const len = lengthOf(O);
      needCallable(predicate);
      for (let k = 0; k < len; k++) {
        if (thisArg === undefined ? predicate(O[k], k, O) : call(predicate, thisArg, O[k], k, O)) return k;
      }
      return -1;
    },

    findLast(predicate, thisArg) {
      const O = this;
      const len = lengthOf(O);
      needCallable(predicate);
      for (let k = len - 1; k >= 0; k--) {
        const v = O[k];
        if (thisArg === undefined ? predicate(v, k, O) : call(predicate, thisArg, v, k, O)) return v;
      }
      return undefined;
    },

    findLastIndex(predicate, thisArg) {
      const O = this;
      const len = lengthOf(O);
      needCallable(predicate);
      for (let k = len - 1; k >= 0; k--) {
        if (thisArg === undefined ? predicate(O[k], k, O) : call(predicate, thisArg, O[k], k, O)) return k;
      }
      return -1;
    },

    flat(depth) {
      const O = this;
      const len = lengthOf(O);
      let d = 1;
      if (depth !== undefined) {
        d = toInt(depth);
        if (d < 0) d = 0;
      }
      const S = speciesCreate(O, 0);
      const A = S === undefined ? list() : S;
      const n = flatten(S, A, O, len, 0, d);
      return S === undefined ? build(A, n) : A;
    },

    flatMap(mapper, thisArg) {
      const O = this;
      const len = lengthOf(O);
      needCallable(mapper);
      const S = speciesCreate(O, 0);
      const A = S === undefined ? list() : S;
      const n = flatten(S, A, O, len, 0, 1, mapper, thisArg);
      return S === undefined ? build(A, n) : A;
    },

    forEach(callbackfn, thisArg) {
      const O = this;
      const len = lengthOf(O);
      needCallable(callbackfn);
      for (let k = 0; k < len; k++) {
        if (!(k in O)) continue;
        if (thisArg === undefined) callbackfn(O[k], k, O);
        else call(callbackfn, thisArg, O[k], k, O);
      }
      return undefined;
    },

    includes(searchElement, fromIndex) {
      const O = this;
      const len = lengthOf(O);
      if (len === 0) return false;
      const n = toInt(fromIndex);
      if (n === Infinity) return false;
      let k = n >= 0 ? n : len + n < 0 ? 0 : len + n;
      for (; k < len; k++) {
        const v = O[k];
        if (v === searchElement || (v !== v && searchElement !== searchElement)) return true;
      }
      return false;
    },

    indexOf(searchElement, fromIndex) {
      const O = this;
      const len = lengthOf(O);
      if (len === 0) return -1;
      const n = toInt(fromIndex);
      if (n === Infinity) return -1;
      let k = n >= 0 ? n : len + n < 0 ? 0 : len + n;
      for (; k < len; k++) {
        if (k in O && O[k] === searchElement) return k;
      }
      return -1;
    },

    join(separator) {
      const O = this;
      const len = lengthOf(O);
      const sep = separator === undefined ? "," : `${separator}`;
      if (len > maxElems) tooMany(len, "Array.prototype.join");
      const parts = list();
      let total = 0;
      for (let k = 0; k < len; k++) {
        const v = O[k];
        const s = v === undefined || v === null ? "" : `${v}`;
        parts[k] = s;
        total += s.length + sep.length;
        if (total > maxElems) h.tooLong(total, "Array.prototype.join");
      }
      return joinParts(parts, len, sep);
    },

    lastIndexOf(searchElement, fromIndex) {
      const O = this;
      const len = lengthOf(O);
      if (len === 0) return -1;
      const n = arguments.length > 1 ? toInt(fromIndex) : len - 1;
      if (n === -Infinity) return -1;
      let k = n >= 0 ? (n < len - 1 ? n : len - 1) : len + n;
      for (; k >= 0; k--) {
        if (k in O && O[k] === searchElement) return k;
      }
      return -1;
    },

    map(callbackfn, thisArg) {
      const O = this;
      const len = lengthOf(O);
      needCallable(callbackfn);
      const S = speciesCreate(O, len);
      const A = S === undefined ? list() : S;
      for (let k = 0; k < len; k++) {
        if (k in O) define(S, A, k, thisArg === undefined ? callbackfn(O[k], k, O) : call(callbackfn, thisArg, O[k], k, O));
      }
      return S === undefined ? build(A, len) : A;
    },

    pop() {
      const O = this;
      const len = lengthOf(O);
      if (len === 0) {
        O.length = 0;
        return undefined;
      }
      const newLen = len - 1;
      const element = O[newLen];
      delete O[newLen];
      O.length = newLen;
      return element;
    },

    push(...items) {
      const O = this;
      let len = lengthOf(O);
      if (len + items.length > MAX) typeError("the array would be longer than 2**53 - 1");
      for (let i = 0; i < items.length; i++) O[len++] = items[i];
      O.length = len;
      return len;
    },

    reduce(callbackfn, initialValue) {
      const O = this;
      const len = lengthOf(O);
      needCallable(callbackfn);
      if (len === 0 && arguments.length < 2) typeError("reduce of an empty array with no initial value");
      let k = 0;
      let acc = initialValue;
      if (arguments.length < 2) {
        let present = false;
        for (; !present && k < len; k++) {
          present = k in O;
          if (present) acc = O[k];
        }
        if (!present) typeError("reduce of an empty array with no initial value");
      }
      for (; k < len; k++) {
        if (k in O) acc = callbackfn(acc, O[k], k, O);
      }
      return acc;
    },

    reduceRight(callbackfn, initialValue) {
      const O = this;
      const len = lengthOf(O);
      needCallable(callbackfn);
      if (len === 0 && arguments.length < 2) typeError("reduce of an empty array with no initial value");
      let k = len - 1;
      let acc = initialValue;
      if (arguments.length < 2) {
        let present = false;
        for (; !present && k >= 0; k--) {
          present = k in O;
          if (present) acc = O[k];
        }
        if (!present) typeError("reduce of an empty array with no initial value");
      }
      for (; k >= 0; k--) {
        if (k in O) acc = callbackfn(acc, O[k], k, O);
      }
      return acc;
    },

    reverse() {
      const O = this;
      const len = lengthOf(O);
      const middle = (len - (len % 2)) / 2;
      for (let lower = 0; lower !== middle; lower++) {
        const upper = len - lower - 1;
        const lowerExists = lower in O;
        let lowerValue;
        let upperValue;
        if (lowerExists) lowerValue = O[lower];
        const upperExists = upper in O;
        if (upperExists) upperValue = O[upper];
        if (lowerExists && upperExists) {
          O[lower] = upperValue;
          O[upper] = lowerValue;
        } else if (upperExists) {
          O[lower] = upperValue;
          delete O[upper];
        } else if (lowerExists) {
          delete O[lower];
          O[upper] = lowerValue;
        }
      }
      return O;
    },

    shift() {
      const O = this;
      const len = lengthOf(O);
      if (len === 0) {
        O.length = 0;
        return undefined;
      }
      const first = O[0];
      for (let k = 1; k < len; k++) {
        if (k in O) O[k - 1] = O[k];
        else delete O[k - 1];
      }
      delete O[len - 1];
      O.length = len - 1;
      return first;
    },

    slice(start, end) {
      const O = this;
      const len = lengthOf(O);
      let k = relative(start, len);
      const final = end === undefined ? len : relative(end, len);
      const S = speciesCreate(O, final - k > 0 ? final - k : 0);
      const A = S === undefined ? list() : S;
      let n = 0;
      for (; k < final; k++, n++) {
        if (k in O) define(S, A, n, O[k]);
      }
      if (S === undefined) return build(A, n);
      A.length = n;
      return A;
    },

    some(callbackfn, thisArg) {
      const O = this;
      const len = lengthOf(O);
      needCallable(callbackfn);
      for (let k = 0; k < len; k++) {
        if (k in O && (thisArg === undefined ? callbackfn(O[k], k, O) : call(callbackfn, thisArg, O[k], k, O))) return true;
      }
      return false;
    },

    sort(comparefn) {
      if (comparefn !== undefined) needCallable(comparefn);
      const O = this;
      const len = lengthOf(O);
      const items = list();
      let n = 0;
      for (let k = 0; k < len; k++) {
        if (k in O) items[n++] = O[k];
      }
      const sorted = mergeSort(items, n, sortCompare(comparefn));
      let j = 0;
      for (; j < n; j++) O[j] = sorted[j];
      for (; j < len; j++) delete O[j];
      return O;
    },

    splice(start, deleteCount, ...items) {
      const O = this;
      const len = lengthOf(O);
      const actualStart = relative(start, len);
      const itemCount = items.length;
      let skip;
      if (arguments.length === 0) skip = 0;
      else if (arguments.length === 1) skip = len - actualStart;
      else {
        const dc = toInt(deleteCount);
        skip = dc < 0 ? 0 : dc > len - actualStart ? len - actualStart : dc;
      }
      if (len + itemCount - skip > MAX) typeError("the array would be longer than 2**53 - 1");
      const S = speciesCreate(O, skip);
      let A = S === undefined ? list() : S;
      for (let k = 0; k < skip; k++) {
        const from = actualStart + k;
        if (from in O) define(S, A, k, O[from]);
      }
      if (S === undefined) A = build(A, skip);
      else A.length = skip;
      if (itemCount < skip) {
        for (let k = actualStart; k < len - skip; k++) {
          const from = k + skip;
          const to = k + itemCount;
          if (from in O) O[to] = O[from];
          else delete O[to];
        }
        for (let k = len; k > len - skip + itemCount; k--) delete O[k - 1];
      } else if (itemCount > skip) {
        for (let k = len - skip; k > actualStart; k--) {
          const from = k + skip - 1;
          const to = k + itemCount - 1;
          if (from in O) O[to] = O[from];
          else delete O[to];
        }
      }
      for (let i = 0; i < itemCount; i++) O[actualStart + i] = items[i];
      O.length = len - skip + itemCount;
      return A;
    },

    toLocaleString() {
      const O = this;
      const len = lengthOf(O);
      if (len > maxElems) tooMany(len, "Array.prototype.toLocaleString");
      const parts = list();
      let total = 0;
      for (let k = 0; k < len; k++) {
        const v = O[k];
        const s = v === undefined || v === null ? "" : `${v.toLocaleString()}`;
        parts[k] = s;
        total += s.length + 1;
        if (total > maxElems) h.tooLong(total, "Array.prototype.toLocaleString");
      }
      return joinParts(parts, len, ",");
    },

    toReversed() {
      const O = this;
      const len = lengthOf(O);
      const A = arrayCreate(len);
      if (len > maxElems) tooMany(len, "Array.prototype.toReversed");
      for (let k = 0; k < len; k++) A[k] = O[len - k - 1];
      return build(A, len);
    },

    toSorted(comparefn) {
      if (comparefn !== undefined) needCallable(comparefn);
      const O = this;
      const len = lengthOf(O);
      arrayCreate(len);
      if (len > maxElems) tooMany(len, "Array.prototype.toSorted");
      const items = list();
      for (let k = 0; k < len; k++) items[k] = O[k];
      const sorted = mergeSort(items, len, sortCompare(comparefn));
      return build(sorted, len);
    },

    toSpliced(start, skipCount, ...items) {
      const O = this;
      const len = lengthOf(O);
      const actualStart = relative(start, len);
      const insertCount = items.length;
      let skip;
      if (arguments.length === 0) skip = 0;
      else if (arguments.length === 1) skip = len - actualStart;
      else {
        const sc = toInt(skipCount);
        skip = sc < 0 ? 0 : sc > len - actualStart ? len - actualStart : sc;
      }
      const newLen = len + insertCount - skip;
      if (newLen > MAX) typeError("the array would be longer than 2**53 - 1");
      const A = arrayCreate(newLen);
      if (newLen > maxElems) tooMany(newLen, "Array.prototype.toSpliced");
      let i = 0;
      let r = actualStart + skip;
      for (; i < actualStart; i++) A[i] = O[i];
      for (let j = 0; j < insertCount; j++) A[i++] = items[j];
      for (; i < newLen; i++, r++) A[i] = O[r];
      return build(A, newLen);
    },

    unshift(...items) {
      const O = this;
      const len = lengthOf(O);
      const argCount = items.length;
      if (argCount > 0) {
        if (len + argCount > MAX) typeError("the array would be longer than 2**53 - 1");
        for (let k = len; k > 0; k--) {
          const from = k - 1;
          const to = k + argCount - 1;
          if (from in O) O[to] = O[from];
          else delete O[to];
        }
        for (let j = 0; j < argCount; j++) O[j] = items[j];
      }
      O.length = len + argCount;
      return len + argCount;
    },

    with(index, value) {
      const O = this;
      const len = lengthOf(O);
      const rel = toInt(index);
      const actual = rel >= 0 ? rel : len + rel;
      if (actual >= len || actual < 0) rangeError("invalid index: " + rel);
      const A = arrayCreate(len);
      if (len > maxElems) tooMany(len, "Array.prototype.with");
      for (let k = 0; k < len; k++) A[k] = k === actual ? value : O[k];
      return build(A, len);
    },

    // Array.from (all of it: see arraylike.go): an iterable one step at a
    // time, an array-like by its length, read once.
    from(items, mapfn, thisArg) {
      const C = this;
      // Construct(%Array%, ...) makes what ArrayCreate makes: a list here.
      const fresh = C === arrayCtor || !isCtor(C);
      const mapping = mapfn !== undefined;
      if (mapping) needCallable(mapfn);
      const usingIterator = items[symIterator];
      if (usingIterator !== undefined && usingIterator !== null) {
        needCallable(usingIterator);
        const A = fresh ? list() : new C();
        const iterator = call(usingIterator, items);
        if (!isObject(iterator)) typeError("the result of Symbol.iterator is not an object");
        const next = iterator.next;
        for (let k = 0; ; k++) {
          if (k >= MAX) {
            closeAfterThrow(iterator);
            typeError("the array would be longer than 2**53 - 1");
          }
          const result = call(next, iterator);
          if (!isObject(result)) typeError(`iterator result ${result} is not an object`);
          if (result.done) {
            if (fresh) return build(A, k);
            A.length = k;
            return A;
          }
          let v = result.value;
          try {
            if (mapping) v = thisArg === undefined ? mapfn(v, k) : call(mapfn, thisArg, v, k);
            if (fresh) A[k] = v;
            else createData(A, k, v);
          } catch (e) {
            closeAfterThrow(iterator);
            throw e;
          }
        }
      }
      const len = lengthOf(items);
      const A = fresh ? arrayCreate(len) : new C(len);
      if (len > maxElems) tooMany(len, "Array.from");
      for (let k = 0; k < len; k++) {
        const v = items[k];
        const mapped = mapping ? (thisArg === undefined ? mapfn(v, k) : call(mapfn, thisArg, v, k)) : v;
        if (fresh) A[k] = mapped;
        else createData(A, k, mapped);
      }
      if (fresh) return build(A, len);
      A.length = len;
      return A;
    },

    // Object.fromEntries (see arraylike.go): the iterable one step at a
    // time; an entry's "0" and "1" read as the language reads them (what
    // an entry lacks is undefined).
    fromEntries(iterable) {
      if (iterable === undefined || iterable === null) typeError("Object.fromEntries called on null or undefined");
      const obj = {};
      const method = iterable[symIterator];
      if (method === undefined || method === null) typeError("the value is not iterable");
      needCallable(method);
      const iterator = call(method, iterable);
      if (!isObject(iterator)) typeError("the result of Symbol.iterator is not an object");
      const next = iterator.next;
      for (;;) {
        const result = call(next, iterator);
        if (!isObject(result)) typeError(`iterator result ${typeof result} is not an object`);
        if (result.done) return obj;
        const entry = result.value;
        try {
          if (!isObject(entry)) typeError("an entry of Object.fromEntries is not an object");
          const k = entry[0];
          const v = entry[1];
          // Without a prototype: goja's literal sets a computed key, and
          // a setter on Object.prototype would see it (test262
          // uses-define-semantics).
          h.defineOwn(obj, { __proto__: null, [k]: v }, v);
        } catch (e) {
          closeAfterThrow(iterator);
          throw e;
        }
      }
    },
  };
  return methods;
})
