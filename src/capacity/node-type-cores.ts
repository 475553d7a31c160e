/**
 * Cores (vCPUs) per worker for common Databricks node types, from the node type id alone; Spark on
 * Databricks gives each executor one core per vCPU. Unknown types give null and advice then says
 * "workers" without cores.
 *
 * | cloud | node types | cores |
 * |---|---|---|
 * | AWS | `<family>.medium` / `.large` / `.xlarge` / `.<N>xlarge` for families m5, m5d, m5n, m6i, m6id, m6in, m6g, m6gd, m7i, m7g, m7gd, r5, r5d, r5n, r6i, r6id, r6g, r6gd, r7i, r7g, r7gd, c5, c5d, c5n, c6i, c6id, c6g, c6gd, c7i, c7g, c7gd, i3, i3en, i4i, i4g, z1d, g4dn, g5 | 1 / 2 / 4 / 4 × N |
 * | Azure | `Standard_<D,E,F,L,M><N><suffix>_v<2..6>` (e.g. `Standard_D4s_v3`, `Standard_E8ds_v4`, `Standard_F16s_v2`, `Standard_L8s_v3`), `Standard_F<N>s` | N |
 * | Azure | `Standard_D{S}3_v2`, `D{S}4_v2`, `D{S}5_v2`, `D{S}12_v2`, `D{S}13_v2`, `D{S}14_v2`, `D{S}15_v2` (older numbering) | 4, 8, 16, 4, 8, 16, 20 |
 * | GCP | `<n1,n2,n2d,e2,c2,c2d,c3,c3d,n4>-<standard,highmem,highcpu>-<N>` (optionally `-lssd`) | N |
 */

const AWS_FAMILIES = new Set([
  'm5', 'm5d', 'm5n', 'm6i', 'm6id', 'm6in', 'm6g', 'm6gd', 'm7i', 'm7g', 'm7gd',
  'r5', 'r5d', 'r5n', 'r6i', 'r6id', 'r6g', 'r6gd', 'r7i', 'r7g', 'r7gd',
  'c5', 'c5d', 'c5n', 'c6i', 'c6id', 'c6g', 'c6gd', 'c7i', 'c7g', 'c7gd',
  'i3', 'i3en', 'i4i', 'i4g', 'z1d', 'g4dn', 'g5',
]);

/** Azure's older Dv2 / DSv2 numbering, where the number is not the vCPU count. */
const AZURE_V2: Record<string, number> = { '3': 4, '4': 8, '5': 16, '12': 4, '13': 8, '14': 16, '15': 20 };

const GCP_FAMILIES = new Set(['n1', 'n2', 'n2d', 'e2', 'c2', 'c2d', 'c3', 'c3d', 'n4']);

/** vCPUs of one node of this type, or null when the type is not in the table. */
export function coresOfNodeType(nodeTypeId: string | null | undefined): number | null {
  if (!nodeTypeId) return null;
  const id = nodeTypeId.trim();
  let m = /^([a-z0-9]+)\.(medium|large|xlarge|(\d+)xlarge)$/.exec(id);
  if (m) {
    if (!AWS_FAMILIES.has(m[1]!)) return null;
    if (m[2] === 'medium') return 1;
    if (m[2] === 'large') return 2;
    if (m[2] === 'xlarge') return 4;
    return positive(4 * Number(m[3]));
  }
  m = /^Standard_DS?(\d+)_v2$/.exec(id);
  if (m) return AZURE_V2[m[1]!] ?? null;
  m = /^Standard_[DEFLM](\d+)[a-z]*_v[2-6]$/.exec(id) ?? /^Standard_F(\d+)s?$/.exec(id);
  if (m) return positive(Number(m[1]));
  m = /^([a-z0-9]+)-(standard|highmem|highcpu)-(\d+)(-lssd)?$/.exec(id);
  if (m) return GCP_FAMILIES.has(m[1]!) ? positive(Number(m[3])) : null;
  return null;
}

function positive(value: number): number | null {
  return Number.isInteger(value) && value > 0 ? value : null;
}
