// Tines' answer executed the way TON executes a split: as message chains, one per path.
//
// usage: node scripts/tines_chains.mjs <peers dir> <graph dir> [--ids 1,2,3] [--cap 20]
//   <peers dir>: a set-up copy of ../shared/peers (its node_modules holds @sushiswap/tines; see its README).
// Writes <graph dir>/tines_chains.json: per query, `dag` (Tines' legs executed as the peers' tines.mjs does:
// each pool once, with what flows into it), `chains_all` (the same flow decomposed into from→to paths, each
// path run on its own after the ones before it, pools moving between them), `chains_cap` (the 20 largest
// paths, renormalised), `chains_cap_l4` (the 20 largest paths of at most 4 hops). Exact integer math: the
// peers' amm.mjs. Setup code (pool classes, fee-on-input Curve wrapper, leg re-execution) follows
// ../shared/peers/tines.mjs.
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'

const peersDir = path.resolve(process.argv[2])
const require = createRequire(path.join(peersDir, 'package.json'))
const { ConstantProductRPool, CurvePool, findMultiRouteExactIn } = await import(pathToFileURL(require.resolve('@sushiswap/tines')).href)
const { cpmmOut, stableOut } = await import(pathToFileURL(path.join(peersDir, 'amm.mjs')).href)

const dir = path.resolve(process.argv[3])
const args = process.argv.slice(4)
const opt = (k, d) => { const i = args.indexOf(k); return i >= 0 ? args[i + 1] : d }

// Stable pool with the fee taken on the input (graph.json semantics). Tines' CurvePool takes it on the
// output, and its HybridRPool (fee on input) has a misplaced parenthesis in computeHybridLiquidity.
class CurveFeeInPool extends CurvePool {
  constructor (addr, t0, t1, fee, A, r0, r1) { super(addr, t0, t1, 0, A, r0, r1); this.feeIn = fee }
  calcOutByIn (amountIn, direction) { return super.calcOutByIn(amountIn * (1 - this.feeIn), direction) }
  calcInByOut (amountOut, direction) {
    const r = super.calcInByOut(amountOut, direction)
    return { inp: r.inp / (1 - this.feeIn), gasSpent: r.gasSpent }
  }
}

const graph = JSON.parse(fs.readFileSync(path.join(dir, 'graph.json')))
const queries = JSON.parse(fs.readFileSync(path.join(dir, 'queries.json')))
const tokens = new Map()
for (const a of graph.assets) tokens.set(a.id, { name: a.id, symbol: a.id, address: a.id, decimals: a.decimals, chainId: 1 })
const poolsById = new Map()
const rpools = graph.pools.map((p) => {
  poolsById.set(p.address, p)
  const t0 = tokens.get(p.asset0); const t1 = tokens.get(p.asset1)
  const r0 = BigInt(p.reserve0); const r1 = BigInt(p.reserve1)
  if (p.kind === 'cpmm') return new ConstantProductRPool(p.address, t0, t1, p.fee_bps / 10000, r0, r1)
  return new CurveFeeInPool(p.address, t0, t1, p.fee_bps / 10000, p.amp, r0, r1)
})
const decOf = new Map(graph.assets.map((a) => [a.id, a.decimals]))
const native = tokens.get('native')

function exactSwap (p, tokIn, a, state) {
  const [r0, r1] = state.get(p.address) || [BigInt(p.reserve0), BigInt(p.reserve1)]
  const fwd = tokIn === p.asset0
  const x = fwd ? r0 : r1; const y = fwd ? r1 : r0
  const tokOut = fwd ? p.asset1 : p.asset0
  const out = p.kind === 'cpmm'
    ? cpmmOut(x, y, a, BigInt(p.fee_bps))
    : stableOut(x, y, a, BigInt(p.fee_bps), BigInt(p.amp), decOf.get(tokIn), decOf.get(tokOut))
  state.set(p.address, fwd ? [r0 + a, r1 - out] : [r0 - out, r1 + a])
  return out
}

// Re-execute Tines legs the way its RouteProcessor does: each leg takes round(swapPortion*65535)/65535
// of what is currently left of tokenFrom (the last leg out of a token has swapPortion 1 = the rest).
// Returns the output, each leg's input and each token's total inflow (for the path decomposition).
function reexecute (legs, from, to, amountIn) {
  const bal = new Map([[from, amountIn]])
  const inflow = new Map([[from, amountIn]])
  const state = new Map()
  const legIn = []
  for (const l of legs) {
    const tf = l.tokenFrom.address; const tt = l.tokenTo.address
    const have = bal.get(tf) || 0n
    const portion = BigInt(Math.round(l.swapPortion * 65535))
    const inp = l.swapPortion >= 1 ? have : have * portion / 65535n
    bal.set(tf, have - inp)
    const out = exactSwap(poolsById.get(l.poolAddress), tf, inp, state)
    bal.set(tt, (bal.get(tt) || 0n) + out)
    inflow.set(tt, (inflow.get(tt) || 0n) + out)
    legIn.push(inp)
  }
  return { out: bal.get(to) || 0n, legIn, inflow }
}

const ids = (opt('--ids', '')).split(',').filter(Boolean).map(Number)
const cap = parseInt(opt('--cap', '20'))
const out = []
for (const q of queries.filter((x) => ids.length === 0 || ids.includes(x.id))) {
  const from = tokens.get(q.from); const to = tokens.get(q.to)
  const amount = BigInt(q.amount)
  const route = findMultiRouteExactIn(from, to, amount, rpools, native, 0, undefined)
  const { out: dag, legIn, inflow } = reexecute(route.legs, q.from, q.to, amount)
  const byFrom = new Map()
  route.legs.forEach((l, i) => { const k = l.tokenFrom.address; if (!byFrom.has(k)) byFrom.set(k, []); byFrom.get(k).push(i) })
  const paths = []
  const walk = (t, share, legs) => {
    if (t === q.to) { paths.push({ share, legs: [...legs] }); return }
    for (const i of byFrom.get(t) || []) {
      const f = Number(legIn[i]) / Number(inflow.get(t))
      legs.push(i); walk(route.legs[i].tokenTo.address, share * f, legs); legs.pop()
    }
  }
  walk(q.from, 1, [])
  paths.sort((a, b) => b.share - a.share)
  const chains = (ps) => {
    const tot = ps.reduce((s, p) => s + p.share, 0)
    const st = new Map(); let sum = 0n; let left = amount
    ps.forEach((p, k) => {
      let a = k === ps.length - 1 ? left : BigInt(Math.floor(Number(amount) * p.share / tot))
      if (a > left) a = left
      left -= a
      for (const i of p.legs) { const l = route.legs[i]; a = exactSwap(poolsById.get(l.poolAddress), l.tokenFrom.address, a, st) }
      sum += a
    })
    return sum
  }
  const all = chains(paths); const capped = chains(paths.slice(0, cap))
  const lim = paths.filter((p) => p.legs.length <= 4).slice(0, cap)
  const cl = lim.length ? chains(lim) : 0n
  out.push({ id: q.id, dag: dag.toString(), chains_all: all.toString(), chains_cap: capped.toString(), chains_cap_l4: cl.toString(), paths: paths.length,
    pools: new Set(route.legs.map((l) => l.poolAddress)).size })
  console.log(JSON.stringify(out[out.length - 1]))
  if (process.env.SHOW) for (const p of paths) console.log('   ', (Number(amount) * p.share).toExponential(4), p.legs.map((i) => route.legs[i].poolAddress).join(' '))
}
fs.writeFileSync(path.join(dir, 'tines_chains.json'), JSON.stringify(out, null, 1))
