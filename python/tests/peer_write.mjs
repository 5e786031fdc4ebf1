#!/usr/bin/env node
// peer_write.mjs PEER_HOME ROOT
//
// The reference writes ROOT/peer.lance for test_peer.py: version 1 with ids 0..19,
// version 2 appends 20..29, version 3 deletes id 5. Exit 3 if the peer is not installed.
import path from "node:path";

const [peerHome, root] = process.argv.slice(2);
let peer;
try {
  peer = await import(path.join(peerHome, "lib/peer.mjs"));
  peer.loadPeer();
} catch (e) {
  process.stderr.write(`peer_write.mjs: ${e.message}\n`);
  process.exit(3);
}
const { makeTable, columnsOf } = await import(path.join(peerHome, "lib/build.mjs"));
const { arrow: A, lancedb } = peer.loadPeer();

const schema = new A.Schema([
  new A.Field("id", new A.Int64(), false),
  new A.Field("name", new A.Utf8(), true),
  new A.Field("score", new A.Float64(), true),
  new A.Field("vec", new A.FixedSizeList(3, new A.Field("item", new A.Float32(), true)), true),
]);
const row = (i) => ({
  id: BigInt(i),
  name: i % 4 === 3 ? null : `peer-${i}`,
  score: i % 5 === 0 ? null : i / 8,
  vec: [i, i + 0.5, -i],
});
const rows = (from, to) => Array.from({ length: to - from }, (_, k) => row(from + k));

const db = await lancedb.connect(root);
const t = await db.createTable("peer", makeTable(schema, columnsOf(schema, rows(0, 20))), {
  mode: "create",
  storageOptions: { new_table_data_storage_version: "2.2" },
});
await t.add(makeTable(schema, columnsOf(schema, rows(20, 30))));
await t.delete("id = 5");
process.stdout.write("ok\n");
