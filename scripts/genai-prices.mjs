// Writes the price list inside @pydantic/genai-prices as JSON, for
// ensure_prices in lib.sh: node genai-prices.mjs INDEX_JS VERSION DATE.
//
// The package ships its data only as a JavaScript array literal at the top
// of dist/index.js ("const E = [ ... ], J = {"), in the schema of the
// project's prices/data.json. Only that literal is evaluated, in an empty
// context with no globals, so none of the package's code runs; when the
// layout changes this fails rather than guess.
import { readFileSync } from 'node:fs'
import vm from 'node:vm'

const [file, version, date] = process.argv.slice(2)
if (!file || !version || !/^\d{4}-\d{2}-\d{2}$/.test(date ?? '')) {
  throw new Error('usage: node genai-prices.mjs INDEX_JS VERSION YYYY-MM-DD')
}
const src = readFileSync(file, 'utf8')
const head = 'const E = ['
const tail = '\n], J = {'
const end = src.indexOf(tail)
if (!src.startsWith(head) || end < 0) {
  throw new Error(`${file}: the price list is no longer the leading "const E = [...]" literal`)
}
const literal = src.slice(head.length - 1, end + 2)
const providers = vm.runInNewContext(`(${literal})`, Object.create(null), { timeout: 10000 })
if (!Array.isArray(providers) || providers.length === 0) {
  throw new Error(`${file}: the price list is not a non-empty array`)
}
const list = { source: `@pydantic/genai-prices@${version}`, date, providers }
process.stdout.write(JSON.stringify(list, null, 1) + '\n')
