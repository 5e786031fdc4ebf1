#!/usr/bin/env node
// demo-rest-client.mjs URL TABLE
//
// The reference's own REST namespace client (LanceDB 0.39, connectNamespace("rest")) against
// a running `lancet serve`: lists the tables, then opens TABLE and reads it through the
// server. Exits non-zero if any call fails or TABLE is missing. Needs LANCE_PEER_DIR (the
// peer installed by tests/peer/setup.sh).
import path from "node:path";
import { fileURLToPath } from "node:url";

const [url, table] = process.argv.slice(2);
if (!url || !table) {
  process.stderr.write("usage: demo-rest-client.mjs URL TABLE\n");
  process.exit(64);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const { loadPeer } = await import(path.join(here, "../tests/peer/lib/peer.mjs"));
const { lancedb } = loadPeer();

// A server that stops answering must not hang the demo.
const timer = setTimeout(() => {
  process.stderr.write(`demo-rest-client: no answer from ${url} within 30 s\n`);
  process.exit(1);
}, 30000);
const db = await lancedb.connectNamespace("rest", { uri: url });
const names = await db.tableNames();
console.log(`reference client, tableNames(): ${JSON.stringify(names)}`);
if (!names.includes(table)) {
  process.stderr.write(`demo-rest-client: ${table} is not listed\n`);
  process.exit(1);
}
const t = await db.openTable(table);
console.log(`reference client, ${table}.countRows(): ${await t.countRows()}`);
clearTimeout(timer);
