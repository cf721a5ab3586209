/**
 * Where a member name appears twice in one object of a JSON text (its path, `a.b.0.c`), or
 * undefined. RFC 8259 §4 says names SHOULD be unique and leaves duplicates to the parser
 * (JSON.parse keeps the last), so `{"scope":"a","scope":"b"}` would mean one thing to us and
 * another to a proxy or WAF that keeps the first (API.md §8: a 400). Names compare after
 * unescaping (`"a"` = `"\u0061"`). Call only on text JSON.parse accepted: the scanner assumes
 * well-formed JSON.
 */
export function findDuplicateKey(json: string): string[] | undefined {
  interface Open {
    names: Set<string> | null; // null: an array
    path: string[];
    index: number;
    last: string | undefined;
  }
  const stack: Open[] = [];
  let expectKey = false;
  const childPath = () => {
    const top = stack.at(-1);
    if (!top) return [];
    return [...top.path, top.names ? (top.last ?? '') : String(top.index)];
  };
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '{' || c === '[') {
      stack.push({ names: c === '{' ? new Set() : null, path: childPath(), index: 0, last: undefined });
      expectKey = c === '{';
    } else if (c === '}' || c === ']') {
      stack.pop();
      expectKey = false;
    } else if (c === ',') {
      const top = stack.at(-1)!;
      top.index++;
      expectKey = top.names !== null;
    } else if (c === '"') {
      let j = i + 1;
      while (json[j] !== '"') j += json[j] === '\\' ? 2 : 1;
      if (expectKey) {
        const top = stack.at(-1)!;
        const name = JSON.parse(json.slice(i, j + 1)) as string;
        if (top.names!.has(name)) return [...top.path, name];
        top.names!.add(name);
        top.last = name;
        expectKey = false;
      }
      i = j;
    }
  }
  return undefined;
}
