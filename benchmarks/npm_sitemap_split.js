// The peer of feedmap's splitting writer in benchmarks/bench_scale.py: npm `sitemap`'s SitemapAndIndexStream.
//
//   node npm_sitemap_split.js MODULES_DIR IN.jsonl OUT_DIR BASE_URL [LIMIT]
//   node npm_sitemap_split.js MODULES_DIR --made=N OUT_DIR BASE_URL [LIMIT]
//   node npm_sitemap_split.js MODULES_DIR IN.xml OUT_DIR BASE_URL [LIMIT]
//   node npm_sitemap_split.js MODULES_DIR IN.txt OUT_DIR BASE_URL [LIMIT]
//
// Streams the JSON lines of IN.jsonl (feedmap's jsonl schema: loc, lastmod, images [{loc}]) as sitemap items
// (url, lastmod, img [{url}]) into OUT_DIR/sitemap-N.xml files of LIMIT URLs (default 50,000) and
// OUT_DIR/sitemap_index.xml naming them as BASE_URL + file name (sitemaps.org 0.9 sitemap index), then prints
// one JSON line: the URLs written, the files and this process's own peak RSS (VmHWM from /proc/self/status).
// With --made=N no file is read: N items are made in the process by made() (_scale_data.made in Python).
// An IN.xml sitemap is parsed by the package's own XMLToSitemapItemStream, each item written on as it comes.
// An IN.txt text sitemap (one URL a line, sitemaps.org "Text file") gives one item ({url}) per non-blank line.
'use strict';

const fs = require('fs');
const path = require('path');
const readline = require('readline');
const { once } = require('events');
const { finished } = require('stream/promises');

const PREFIX = 'https://bench.example/';
const pad = (n) => String(n).padStart(2, '0');

function made(index) {
  const day = (index * 7919) % 365;
  const lastmod = `2024-${pad(1 + (Math.floor(day / 31) % 12))}-${pad(1 + (day % 28))}T${pad(index % 24)}:${pad((index * 31) % 60)}:00Z`;
  const img = Array.from({ length: 1 + (index % 2) }, (_, n) => ({ url: `${PREFIX}img/${index}-${n}.jpg` }));
  return { url: `${PREFIX}catalogue/product-${index}`, lastmod, img };
}

// Writes each item into sms (waiting for 'drain' when its buffer is full, as a stream pipe does); the count.
async function writeAll(sms, input) {
  let urls = 0;
  if (input.startsWith('--made=')) {
    const count = Number(input.slice('--made='.length));
    for (let index = 0; index < count; index += 1) {
      urls += 1;
      if (!sms.write(made(index))) await once(sms, 'drain');
    }
    return urls;
  }
  if (input.endsWith('.xml')) {
    const { XMLToSitemapItemStream } = require(path.join(process.argv[2], 'sitemap'));
    for await (const item of fs.createReadStream(input).pipe(new XMLToSitemapItemStream())) {
      urls += 1;
      if (!sms.write(item)) await once(sms, 'drain');
    }
    return urls;
  }
  const lines = readline.createInterface({ input: fs.createReadStream(input), crlfDelay: Infinity });
  if (input.endsWith('.txt')) {
    for await (const line of lines) {
      const url = line.trim();
      if (!url) continue;
      urls += 1;
      if (!sms.write({ url })) await once(sms, 'drain');
    }
    return urls;
  }
  for await (const line of lines) {
    if (!line) continue;
    const entry = JSON.parse(line);
    const item = { url: entry.loc, lastmod: entry.lastmod, img: (entry.images || []).map((image) => ({ url: image.loc })) };
    urls += 1;
    if (!sms.write(item)) await once(sms, 'drain');
  }
  return urls;
}

async function main() {
  const [modules, input, outDir, base, limitText] = process.argv.slice(2);
  const { SitemapAndIndexStream, SitemapStream } = require(path.join(modules, 'sitemap'));
  const limit = Number(limitText || 50000);
  const pending = [];
  const sms = new SitemapAndIndexStream({
    limit,
    lastmodDateOnly: false,
    getSitemapStream: (i) => {
      const name = `sitemap-${i + 1}.xml`;
      const sitemap = new SitemapStream();
      const ws = sitemap.pipe(fs.createWriteStream(path.join(outDir, name)));
      pending.push(finished(ws));
      return [new URL(name, base).toString(), sitemap, ws];
    },
  });
  const index = sms.pipe(fs.createWriteStream(path.join(outDir, 'sitemap_index.xml')));
  const urls = await writeAll(sms, input);
  sms.end();
  await finished(index);
  await Promise.all(pending);
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  const peak = Number((status.match(/VmHWM:\s+(\d+)/) || [0, 0])[1]);
  console.log(JSON.stringify({ urls, files: pending.length, vmhwm_kib: peak }));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
