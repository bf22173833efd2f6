// The builder's query rows and the path they belong to.

/** The resource a path names, whatever its namespace and query: query rows
 * made for one path belong to every namespace's copy of it, and to no other
 * resource. */
export function resourceKey(path) {
  return path.split('?')[0].trim().replace(/\/namespaces\/[^/]+(?=\/)/, '/namespaces/*').replace(/\/+$/, '');
}

/** What the path field and the query rows become when a path is committed
 * (typed, or sent): a query typed into the path moves into the rows, its
 * values replacing rows of the same names; rows made for another resource
 * are dropped, so `…?limit=1` or `?watch=1` never rides along to the next
 * path. key is the resource the rows belong to (resourceKey). */
export function commitPath(typed, rows, key) {
  const i = typed.indexOf('?');
  const base = i < 0 ? typed : typed.slice(0, i);
  const k = resourceKey(base);
  let out = k === key ? rows : [];
  if (i >= 0) {
    const q = [...new URLSearchParams(typed.slice(i + 1))];
    const names = new Set(q.map(([n]) => n));
    out = [...out.filter(([n]) => !names.has(n)), ...q];
  }
  return { path: base, rows: out, key: k };
}
