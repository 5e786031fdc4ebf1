// What the node interop scripts share: their arguments (LANCET_BIN PEER_HOME WORK_DIR
// [ARG...]), the reference loaded from PEER_HOME, PASS/FAIL lines, commands that must
// succeed, and the check that both implementations dump every version alike.
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";

/// Parses the arguments of script `name` (exits 64 with usage when they are missing)
/// and loads the reference. `finish()` prints the summary line and exits 0 only when
/// every reported check passed.
export async function openInterop(name) {
  const [lancet, peerHome, work, ...rest] = process.argv.slice(2);
  if (!lancet || !peerHome || !work) {
    process.stderr.write(`usage: ${name}.mjs LANCET_BIN PEER_HOME WORK_DIR\n`);
    process.exit(64);
  }
  const { loadPeer } = await import(path.join(peerHome, "lib/peer.mjs"));
  const { makeTable, columnsOf } = await import(path.join(peerHome, "lib/build.mjs"));
  const { arrow: A, lancedb } = loadPeer();
  let failures = 0;
  const report = (ok, what, detail = "") => {
    process.stdout.write(`${ok ? "PASS" : "FAIL"} ${name} ${what}${detail ? `: ${detail}` : ""}\n`);
    if (!ok) failures++;
  };
  const run = (cmd, args, what) => {
    const r = spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 1 << 28 });
    if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status}): ${r.stderr || r.error}`);
    return r.stdout;
  };
  // `lancet dump --all-versions` of `dir` against the reference's dump.mjs, through
  // check.mjs; both dumps are kept in WORK_DIR as TAG.lancet.json and TAG.peer.json.
  const compareDumps = (dir, tag, what) => {
    const ours = path.join(work, `${tag}.lancet.json`);
    const ref = path.join(work, `${tag}.peer.json`);
    run(lancet, ["dump", dir, "--all-versions", "--out", ours], `lancet dump of ${tag}`);
    fs.writeFileSync(ref, run("node", [path.join(peerHome, "dump.mjs"), dir, "--all-versions"], `dump.mjs of ${tag}`));
    const r = spawnSync("node", [path.join(peerHome, "check.mjs"), ref, ours, "--max-diffs", "10"], { encoding: "utf8" });
    const last = (r.stdout || "").trim().split("\n").pop();
    report(r.status === 0, `${tag}: ${what}`, r.status === 0 ? last : `${r.stdout}${r.stderr}`);
  };
  const finish = () => {
    process.stdout.write(`${name}: ${failures === 0 ? "OK" : `${failures} failed`}\n`);
    process.exit(failures === 0 ? 0 : 1);
  };
  return { lancet, peerHome, work, rest, A, lancedb, makeTable, columnsOf, report, run, compareDumps, finish };
}
