/**
 * The first member name that appears twice in one object of a JSON text, or undefined. RFC 8259
 * §4 says names SHOULD be unique and leaves duplicates to the parser (JSON.parse keeps the last),
 * so `{"scope":"a","scope":"b"}` would mean one thing to us and another to a proxy or WAF that
 * keeps the first (API.md §8: a 400). Names compare after unescaping (`"a"` = `"\u0061"`).
 * Call only on text JSON.parse accepted: this scanner assumes well-formed JSON.
 */
export function findDuplicateKey(json: string): string | undefined {
  // One entry per open container: the names seen (objects) or null (arrays).
  const stack: (Set<string> | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '{') {
      stack.push(new Set());
      expectKey = true;
    } else if (c === '[') {
      stack.push(null);
    } else if (c === '}' || c === ']') {
      stack.pop();
      expectKey = false;
    } else if (c === ',') {
      expectKey = stack.at(-1) instanceof Set;
    } else if (c === '"') {
      let j = i + 1;
      while (json[j] !== '"') j += json[j] === '\\' ? 2 : 1;
      if (expectKey) {
        const name = JSON.parse(json.slice(i, j + 1)) as string;
        const seen = stack.at(-1) as Set<string>;
        if (seen.has(name)) return name;
        seen.add(name);
        expectKey = false;
      }
      i = j;
    }
  }
  return undefined;
}
