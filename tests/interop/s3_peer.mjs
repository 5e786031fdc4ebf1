#!/usr/bin/env node
// s3_peer.mjs dump URI [--all-versions] | write URI
//
// The reference (LanceDB) on S3, for s3_interop.sh: `dump` prints the lance-peer-dump/1
// document of the dataset at URI (s3://bucket/.../name.lance); `write` creates a
// dataset there (two versions: create, then an append). Storage options come from
// the AWS_* variables scripts/s3-server.sh exports. PEER names the peer harness.
import path from "node:path";
import { pathToFileURL } from "node:url";

const peer = process.env.PEER;
const lib = (f) => import(pathToFileURL(path.join(peer, "lib", f)).href);
const { openTable, splitUri } = await lib("benchstore.mjs");
const { dumpTable, renderDump } = await lib("dump.mjs");
const { loadPeer } = await lib("peer.mjs");

const storageOptions = {
  aws_access_key_id: process.env.AWS_ACCESS_KEY_ID,
  aws_secret_access_key: process.env.AWS_SECRET_ACCESS_KEY,
  aws_endpoint: process.env.AWS_ENDPOINT_URL,
  aws_region: process.env.AWS_REGION || "us-east-1",
  allow_http: "true",
  aws_virtual_hosted_style_request: "false",
};

const [mode, uri, ...rest] = process.argv.slice(2);
if (mode === "dump") {
  const ds = await openTable(uri, storageOptions);
  try {
    const doc = await dumpTable(ds.table, { name: ds.name, snapshots: rest.includes("--all-versions") ? "all" : "latest" });
    process.stdout.write(renderDump(doc) + "\n");
  } finally {
    ds.close();
  }
} else if (mode === "write") {
  const { lancedb } = loadPeer();
  const { root, name } = splitUri(uri);
  const db = await lancedb.connect(root, { storageOptions });
  const rows = (from, n) =>
    Array.from({ length: n }, (_, i) => ({ id: from + i, name: `peer-${from + i}`, x: (from + i) / 4 }));
  const table = await db.createTable(name, rows(0, 50));
  await table.add(rows(50, 25));
  process.stdout.write(`wrote ${uri}: version ${await table.version()}\n`);
} else {
  process.stderr.write("usage: s3_peer.mjs dump URI [--all-versions] | write URI\n");
  process.exit(64);
}
