// The read-only browser view of `lancet serve --ui` (docs/ui.md). Plain DOM, no
// framework and no build step. Values from tables only ever become text nodes, never
// markup; images come back as blob: URLs made from our own answers, so the token
// travels in a header, never in a URL.
'use strict';

const FRAMES_PER_STRIP = 6;
const FRAME_WIDTH = 160;
const PAGE_ROWS = 50;
const CELL_CHARS = 80;

const state = {
  token: sessionStorage.getItem('lancet-token') || '',
  table: null,  // '$'-joined id
  info: null,   // /ui/api/table answer
  offset: 0,
  where: '',
  total: 0,
  objectUrls: [],
};

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : String(c));
  return e;
}

function setStatus(text) { $('status').textContent = text || ''; }

async function api(route, params) {
  const url = 'api/' + route + (params ? '?' + new URLSearchParams(params) : '');
  const headers = state.token ? { 'x-api-key': state.token } : {};
  const res = await fetch(url, { headers, cache: 'no-store' });
  if (res.status === 401) {
    $('token-form').hidden = false;
    throw new Error('this server needs a token: enter it above');
  }
  if (!res.ok) {
    let message = res.status + ' ' + res.statusText;
    try { message = (await res.json()).error || message; } catch (e) { /* not JSON */ }
    throw new Error(message);
  }
  return res;
}
const apiJson = async (route, params) => (await api(route, params)).json();
async function apiImage(route, params) {
  const url = URL.createObjectURL(await (await api(route, params)).blob());
  state.objectUrls.push(url);
  return url;
}

function table(headers, rows) {
  const t = document.createDocumentFragment();
  t.append(el('thead', {}, el('tr', {}, ...headers.map((h) => el('th', {}, h)))));
  const body = el('tbody');
  for (const r of rows) body.append(el('tr', {}, ...r.map((c) => (c instanceof Node ? c : el('td', {}, c)))));
  t.append(body);
  return t;
}

function valueText(v) {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'object' && v.blob) return 'blob, ' + (v.size ?? '?') + ' bytes';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function cell(v) {
  let text = valueText(v);
  if (text.length > CELL_CHARS) text = text.slice(0, CELL_CHARS - 1) + '\u2026';
  return el('td', v === null ? { class: 'null' } : {}, text);
}

async function loadTables() {
  const answer = await apiJson('tables');
  const list = $('tables');
  list.replaceChildren();
  for (const t of answer.tables) {
    const b = el('button', { type: 'button', 'data-table': t.id }, t.path.join('.'));
    b.addEventListener('click', () => selectTable(t.id).catch((e) => setStatus(e.message)));
    list.append(el('li', {}, b));
  }
  if (answer.truncated) list.append(el('li', { class: 'note' }, 'more tables not listed'));
  const wanted = new URLSearchParams(location.hash.slice(1)).get('t');
  if (wanted && answer.tables.some((t) => t.id === wanted)) await selectTable(wanted);
}

async function selectTable(id) {
  state.table = id;
  state.offset = 0;
  state.where = '';
  $('filter').value = '';
  history.replaceState(null, '', '#' + new URLSearchParams({ t: id }));
  for (const b of document.querySelectorAll('#tables button')) b.classList.toggle('current', b.dataset.table === id);
  const info = await apiJson('table', { table: id });
  state.info = info;
  $('table').hidden = false;
  $('table-title').textContent = id.split('$').join('.');
  $('table-summary').textContent = `version ${info.version}, ${info.rows} rows, ${info.fields.length} columns`;
  $('schema').replaceChildren(table(['column', 'type', 'nullable', 'media plugin'],
    info.fields.map((f) => [f.name, f.type, f.nullable ? 'yes' : 'no', f.plugin ?? ''])));
  const tagsOf = {};
  for (const t of info.tags) (tagsOf[t.version] ||= []).push(t.name);
  $('versions').replaceChildren(table(['version', 'written', 'rows', 'tags'],
    info.versions.map((v) => [v.version, v.timestamp_ms ? new Date(v.timestamp_ms).toISOString() : '', v.rows,
      (tagsOf[v.version] || []).join(', ')])));
  $('indexes').replaceChildren(info.indexes.length
    ? table(['name', 'type', 'column', 'segments', 'indexed rows', 'unindexed rows', 'bytes'],
      info.indexes.map((i) => [i.name, i.type + (i.usable ? '' : ' (not used)'), i.column, i.segments,
        i.indexed_rows, i.unindexed_rows, i.size_bytes]))
    : el('tr', {}, el('td', {}, 'no indexes')));
  await loadRows();
}

async function loadRows() {
  const err = $('rows-error');
  err.hidden = true;
  const params = { table: state.table, offset: state.offset, limit: PAGE_ROWS };
  if (state.where) params.where = state.where;
  let answer;
  try {
    answer = await apiJson('rows', params);
  } catch (e) {
    err.textContent = e.message;
    err.hidden = false;
    return;
  }
  state.total = answer.total;
  const count = $('match-count');
  count.dataset.total = String(answer.total);
  const rowsWord = answer.total === 1 ? 'row' : 'rows';
  count.textContent = state.where ? `${answer.total} ${rowsWord} match${answer.total === 1 ? 'es' : ''}`
    : `${answer.total} ${rowsWord}`;
  const first = answer.rows.length ? answer.offset + 1 : 0;
  $('page').textContent = `${first}\u2013${answer.offset + answer.rows.length}`;
  $('prev').disabled = answer.offset === 0;
  $('next').disabled = answer.offset + answer.rows.length >= answer.total;
  const rows = $('rows');
  rows.replaceChildren(table(['_rowid', ...answer.columns], []));
  const body = rows.querySelector('tbody');
  for (const r of answer.rows) {
    const tr = el('tr', { 'data-rowid': r._rowid }, el('td', {}, r._rowid), ...r.values.map(cell));
    tr.addEventListener('click', () => {
      for (const other of body.children) other.classList.toggle('current', other === tr);
      showDetail(answer.columns, r);
    });
    body.append(tr);
  }
  $('detail').hidden = true;
}

function showDetail(columns, row) {
  for (const url of state.objectUrls) URL.revokeObjectURL(url);
  state.objectUrls = [];
  const detail = $('detail');
  const values = el('dl');
  columns.forEach((name, i) => values.append(el('dt', {}, name), el('dd', {}, valueText(row.values[i]))));
  detail.replaceChildren(el('h3', {}, `Row ${row._rowid}`), values);
  state.info.fields.forEach((f) => {
    const v = row.values[columns.indexOf(f.name)];
    if (!f.blob || v === null || v === undefined) return;
    const box = el('div', { class: 'blob-preview', 'data-column': f.name }, el('h4', {}, f.name));
    detail.append(box);
    const params = { table: state.table, column: f.name, row: row._rowid };
    const show = f.plugin ? showVideo(box, params) : showImage(box, params);
    show.catch((e) => box.append(el('p', { class: 'error' }, e.message)));
  });
  detail.hidden = false;
}

async function showImage(box, params) {
  const img = el('img', { class: 'blob-image', alt: `${params.column} of row ${params.row}` });
  box.append(img);
  try {
    img.src = await apiImage('blob', params);
  } catch (e) {
    img.remove();
    throw e;
  }
}

async function showVideo(box, params) {
  const v = await apiJson('video', params);
  box.append(el('p', { class: 'video-info', 'data-duration': String(v.duration_s) },
    `${v.duration_s.toFixed(2)} s, ${v.fps.toFixed(2)} fps, ${v.width}\u00d7${v.height}, ${v.codec || '?'}, ` +
    `${v.frames} frames, ${v.gops} GOPs`));
  const strip = el('div', { class: 'frame-strip' });
  box.append(strip);
  const loads = [];
  for (let i = 0; i < FRAMES_PER_STRIP; ++i) {
    const t = (v.duration_s * (i + 0.5)) / FRAMES_PER_STRIP;
    const img = el('img', { alt: `frame at ${t.toFixed(2)} s`, width: String(FRAME_WIDTH) });
    strip.append(el('figure', {}, img, el('figcaption', {}, `${t.toFixed(2)} s`)));
    loads.push(apiImage('frame', { ...params, t: t.toFixed(3), width: FRAME_WIDTH }).then((url) => { img.src = url; }));
  }
  await Promise.all(loads);
}

$('filter-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  state.where = $('filter').value.trim();
  state.offset = 0;
  loadRows();
});
$('prev').addEventListener('click', () => {
  state.offset = Math.max(0, state.offset - PAGE_ROWS);
  loadRows();
});
$('next').addEventListener('click', () => {
  state.offset += PAGE_ROWS;
  loadRows();
});
$('token-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  state.token = $('token').value;
  sessionStorage.setItem('lancet-token', state.token);
  $('token-form').hidden = true;
  setStatus('');
  loadTables().catch((e) => setStatus(e.message));
});

loadTables().catch((e) => setStatus(e.message));
