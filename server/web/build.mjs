// Bundles src/ into dist/ (app.js, plus index.html, app.css and favicon.svg copied): the
// files gin-server embeds and serves at `/`. The output is committed, so the Rust build needs no Node; CI
// builds it again and fails if it differs from the committed one.
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";

mkdirSync("dist", { recursive: true });
await build({
  entryPoints: ["src/main.ts"],
  bundle: true,
  minify: true,
  format: "esm",
  target: ["es2022"],
  outfile: "dist/app.js",
  legalComments: "eof",
  logLevel: "warning",
});
copyFileSync("src/index.html", "dist/index.html");
copyFileSync("src/app.css", "dist/app.css");
copyFileSync("src/favicon.svg", "dist/favicon.svg");
