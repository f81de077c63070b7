// Types of the npm package `tonroute`: the router and, field for field, the `/v4` JSON it takes and answers.
// Each interface and alias bears the name of its schema in the server's OpenAPI document (`GET /openapi.json`);
// bindings/wasm/test/types.test.mjs checks every one against that document (fields, optional ones, types).

/** Decimal integer string (amounts in smallest units: not negative and below 2^120). */
export type LargeInteger = string;
/** Asset id: `native` or `jetton:0:<64 hex>` (answers); requests also take a jetton master's raw or friendly address. */
export type AssetId = string;
/** TON address: raw `0:<64 hex>` (answers) or friendly (48 base64url characters). */
export type Address = string;
/** The exchange of a pool. */
export type ProtocolSlug = "dex_a" | "dex_b_v1" | "dex_b_v2" | "dex_c";
/** `exact_in`: `amount` is the input; `exact_out`: `amount` is the output wanted. */
export type SwapMode = "exact_in" | "exact_out";
/** √price · 2^96 of a concentrated pool, decimal string below 2^160. */
export type SqrtPriceX96 = string;
/** Liquidity of a concentrated pool, decimal string below 2^128. */
export type Liquidity = string;
/** Signed liquidity change at a tick, decimal string in the int128 range. */
export type LiquidityNet = string;

/** `POST /v4/router/quote` request body. Unknown fields are refused; `null` means the default. */
export interface QuoteRequestBody {
  in_minter: AssetId;
  out_minter: AssetId;
  /** Exact-in: amount offered; exact-out: amount wanted. 1 ≤ amount < 2^120. */
  amount: LargeInteger;
  /** Default `exact_in`. */
  swap_mode?: SwapMode | null;
  /** 0..=10000, default 100. */
  slippage_bps?: number | null;
  /** 1..=20, default 4. */
  max_splits?: number | null;
  /** 1..=5, default 3. */
  max_length?: number | null;
  /** `true`: the answer carries the quote's optimality certificate. */
  certify?: boolean | null;
}

/** `POST /v4/router/quote` answer. */
export interface QuoteResponse {
  in_amount: string;
  out_amount: string;
  /** What `swap` needs back, unchanged. */
  swap_data: SwapDataWire;
  display_data: DisplayRoute[];
  /** `(out_amount − best_single_out) / best_single_out`, 12 fractional digits. */
  improvement: string;
  in_minter_price: string;
  out_minter_price: string;
  /** A fraction (0.0123 = 1.23 %). */
  price_impact: number;
  swap_is_possible: boolean;
  /** Only with `certify: true`; `null` when no certificate could be given. */
  certificate?: CertificateWire | null;
}

/** A quote's optimality certificate. */
export interface CertificateWire {
  /** No routing of the quote's input gets more output than this (smallest units). */
  upper_bound: string;
  /** How far the quote is from the bound, in basis points. */
  gap_bps: number;
}

/** The `swap_data` of a quote answer and of a swap request. */
export interface SwapDataWire {
  slippage_bps: number;
  /** Routes; each route is an array of steps. */
  routes: SwapStepWire[][];
}

/** One step of `swap_data`. */
export interface SwapStepWire {
  pool_address: Address;
  is_stable: boolean;
  in_minter: AssetId;
  out_minter: AssetId;
  in_amount: LargeInteger;
  out_amount: LargeInteger;
  /** Nanotons. */
  network_fee: LargeInteger;
  protocol_slug: ProtocolSlug;
  /** On `dex_b_*` steps. */
  dex_b_extra_details?: DexBExtraDetails | null;
  /** On `dex_c` steps. */
  dex_c_extra_details?: DexCExtraDetails | null;
  /**
   * Present (`true`) only on a step through a quote-only pool: the snapshot lacks what its swap message needs
   * (an imported pool whose router wallets or vault could not be derived offline), so `swap` refuses the quote.
   */
  quote_only?: boolean;
}

export interface DexBExtraDetails {
  router: Address;
  from_router_wallet: Address;
  to_router_wallet: Address;
}

export interface DexCExtraDetails {
  from_router_wallet: Address;
  to_router_wallet: Address;
  zero_to_one: boolean;
}

/** One route of `display_data`. */
export interface DisplayRoute {
  /** This route's share of the amount, in percent. */
  in_percent: number;
  network_fee: string;
  steps: DisplayStep[];
}

export interface DisplayStep {
  pool_address: string;
  in_minter: TokenObject;
  out_minter: TokenObject;
  in_amount: string;
  out_amount: string;
  network_fee: string;
  protocol: ProtocolObject;
  volatility_1m: number;
  volatility_5m: number;
  volatility_10m: number;
  volatility_15m: number;
  /** Present (`true`) only on a step through a quote-only pool (see {@link SwapStepWire.quote_only}). */
  quote_only?: boolean;
}

export interface TokenObject {
  address: string;
  name: string;
  symbol: string;
  description: string;
  image: string;
  decimals: number;
  aliased: boolean;
  included: boolean;
  /** `native` or `jetton`. */
  protocol: string;
}

export interface ProtocolObject {
  name: string;
  slug: string;
  image: string;
  website: string;
}

/** `POST /v4/router/swap` request body. */
export interface SwapRequestBody {
  /** The wallet that signs and receives; any address form. */
  sender_address: Address;
  /** The quote's `swap_data`, unchanged. */
  swap_data: SwapDataWire;
}

/** `POST /v4/router/swap` answer: what a TON Connect wallet signs (`sendTransaction`'s `messages`). */
export interface SwapResponse {
  /** The query id written into every message: the swap's `nowMs`. */
  query_id: number;
  /** One message per route. */
  transactions: TransactionWire[];
}

export interface TransactionWire {
  /** Destination address. */
  address: string;
  /** Nanotons attached, decimal string. */
  amount: string;
  /** Body, base64 bag of cells. */
  payload: string;
}

/** One entry of a `POST /v4/admin/reserves` batch: new `reserves` (every curve but `concentrated`), or a
 *  concentrated pool's `sqrt_price_x96`, `tick`, `liquidity` and optionally its whole tick map `ticks`. */
export interface ReserveUpdate {
  pool: Address;
  reserves?: [LargeInteger, LargeInteger] | null;
  sqrt_price_x96?: SqrtPriceX96 | null;
  tick?: number | null;
  liquidity?: Liquidity | null;
  ticks?: TickWire[] | null;
}

export interface TickWire {
  tick: number;
  liquidity_net: LiquidityNet;
  liquidity_gross: Liquidity;
}

/** `POST /v4/admin/reserves` answer. */
export interface ReservesResponse {
  /** How many pools were updated. */
  updated: number;
}

/** `GET /v4/assets` answer. */
export interface AssetsResponse {
  assets: AssetEntry[];
}

export interface AssetEntry {
  /** The asset id as the router takes it. */
  address: string;
  symbol: string;
  name: string;
  decimals: number;
  image: string;
  /** How many pools hold the asset. */
  pools: number;
}

/** The `/v4` error body. */
export interface ErrorBody {
  /** The stable numeric code (README, "Error codes"). */
  code: number;
  message: string;
}

/** Shorter names for the request bodies. */
export type QuoteRequest = QuoteRequestBody;
export type SwapRequest = SwapRequestBody;

/** A snapshot in the `data/snapshot.json` format: JSON text, the parsed object, or the file's bytes. */
export type SnapshotInput = string | object | Uint8Array | ArrayBuffer | ArrayBufferView;

/** A `/v4` error, thrown by every method: `code` and `message` are those of the server's answer. */
export declare class TonrouteError extends Error implements ErrorBody {
  constructor(code: number, message: string);
  readonly name: "TonrouteError";
  code: number;
  message: string;
  toJSON(): ErrorBody;
}

/** Routing over one snapshot's pools; answers as the `/v4` routes do. */
export declare class Router {
  private constructor();
  /** A router over a snapshot (`data/snapshot.json` format). Throws `TonrouteError` (code 1000 for text that
   *  is not a snapshot's JSON; the message names the pool and field of a bad entry). */
  static fromSnapshot(snapshot: SnapshotInput): Router;
  /** `POST /v4/router/quote` (a body object, or its JSON text). */
  quote(body: QuoteRequestBody | string): QuoteResponse;
  /** `quote` on JSON text, answering the server's JSON text. */
  quoteJson(text: string): string;
  /** `POST /v4/router/swap`, received at `nowMs` (Unix milliseconds, default `Date.now()`): the answer's
   *  `query_id` is `nowMs`, the messages' deadline 15 minutes on. */
  swap(body: SwapRequestBody | string, nowMs?: number): SwapResponse;
  /** `swap` on JSON text, answering the server's JSON text. */
  swapJson(text: string, nowMs?: number): string;
  /** `POST /v4/admin/reserves`: reserves, or a concentrated pool's state; all entries or none are applied. */
  updateReserves(batch: ReserveUpdate[] | string): ReservesResponse;
  /** How many pools the router holds. */
  readonly poolCount: number;
  /** The assets of the pools, most pools first (`GET /v4/assets`'s `assets`). */
  assets(): AssetEntry[];
  /** Releases the router's memory now. */
  free(): void;
}

/** Loads the WebAssembly module: in a browser or a bundle, once before the first `Router` (`input`: the
 *  `.wasm`'s URL, a Response, its bytes or a compiled module; default the file in the package). Under Node
 *  it is already loaded: this resolves at once. */
export declare function init(input?: string | URL | Request | Response | BufferSource | WebAssembly.Module): Promise<void>;
export default init;
