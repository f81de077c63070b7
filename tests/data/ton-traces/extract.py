#!/usr/bin/env python3
"""Extracts the hand-off evidence in handoffs.json from toncenter/ton-indexer's recorded mainnet traces.

Input: a checkout of github.com/toncenter/ton-indexer at eb9fbfa3212a583d3eef672f74b98600dfdd898c; the traces are
indexer/tests/traces/<trace id>.lz4 (an LZ4 frame holding msgpack, see indexer/tests/utils/trace_deserializer.py).
Needs the `lz4` command-line tool; msgpack is decoded here (no Python packages).
Usage: python3 extract.py <ton-indexer checkout> > handoffs.json
"""
import base64, json, os, struct, subprocess, sys

def unpack(b, i=0):
    t = b[i]
    if t <= 0x7f: return t, i + 1
    if 0x80 <= t <= 0x8f: return _map(b, i + 1, t & 0x0f)
    if 0x90 <= t <= 0x9f: return _arr(b, i + 1, t & 0x0f)
    if 0xa0 <= t <= 0xbf: return _str(b, i + 1, t & 0x1f)
    if t == 0xc0: return None, i + 1
    if t == 0xc2: return False, i + 1
    if t == 0xc3: return True, i + 1
    if t in (0xc4, 0xc5, 0xc6):
        w = {0xc4: 1, 0xc5: 2, 0xc6: 4}[t]; n = int.from_bytes(b[i+1:i+1+w], 'big'); s = i + 1 + w
        return base64.b64encode(b[s:s+n]).decode(), s + n
    if t == 0xca: return struct.unpack('>f', b[i+1:i+5])[0], i + 5
    if t == 0xcb: return struct.unpack('>d', b[i+1:i+9])[0], i + 9
    if t in (0xcc, 0xcd, 0xce, 0xcf):
        w = {0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8}[t]; return int.from_bytes(b[i+1:i+1+w], 'big'), i + 1 + w
    if t in (0xd0, 0xd1, 0xd2, 0xd3):
        w = {0xd0: 1, 0xd1: 2, 0xd2: 4, 0xd3: 8}[t]; return int.from_bytes(b[i+1:i+1+w], 'big', signed=True), i + 1 + w
    if t in (0xd9, 0xda, 0xdb):
        w = {0xd9: 1, 0xda: 2, 0xdb: 4}[t]; n = int.from_bytes(b[i+1:i+1+w], 'big'); return _str(b, i + 1 + w, n)
    if t in (0xdc, 0xdd):
        w = {0xdc: 2, 0xdd: 4}[t]; n = int.from_bytes(b[i+1:i+1+w], 'big'); return _arr(b, i + 1 + w, n)
    if t in (0xde, 0xdf):
        w = {0xde: 2, 0xdf: 4}[t]; n = int.from_bytes(b[i+1:i+1+w], 'big'); return _map(b, i + 1 + w, n)
    if t >= 0xe0: return t - 256, i + 1
    raise ValueError('msgpack type %x' % t)

def _str(b, i, n): return b[i:i+n].decode('utf-8', 'replace'), i + n
def _arr(b, i, n):
    out = []
    for _ in range(n):
        v, i = unpack(b, i); out.append(v)
    return out, i
def _map(b, i, n):
    out = {}
    for _ in range(n):
        k, i = unpack(b, i); v, i = unpack(b, i); out[str(k)] = v
    return out, i

# Trace id -> what it shows (see docs/cross-exchange.md).
TRACES = {
    'TAi-sZDDdv1zFm6RQMu0UmQdYq9_MuNvFBSfSWiqgL4=': 'STON.fi v2 router A -> TON through pTON-to-pTON -> STON.fi v2 router B (stonfi-v2-swaps.yaml "Stonfi Jetton -> Ton -> Jetton")',
    '00BTqIs6w2qgKXyjfUIwS1WMPbYzWvOn0P16eku_O-4=': 'STON.fi v2 router A -> jetton -> STON.fi v2 router B (stonfi-v2-swaps.yaml "Stonfi v2 Jetton -> Jetton multirouter")',
    'CjtIXjqazbSFrtPqqMMFBgMG6-huwp5CfNtXpQAf8xY=': 'TONCO multihop USDT -> TON -> STORM: the router pays TON to its own pTON wallet, which accepts a ton_transfer from a pTON wallet (tonco.yaml "Tonco swap USDT -> STORM with hop")',
    'c8jOrHqyuJe1hMGx4fm1BTGKXgBQ5O35rbExCkhmRG8=': 'DeDust two-hop swap paying a contract with a fulfill_payload: the jetton vault forwards its value minus 0.0484576 TON (coffee.yaml)',
    '02TsVcC_MOggAZvHHBITbHCvzAt_hCq5WVAiKcZFMno=': 'TONCO swap TON -> USDT that fails: the input goes back to the recipient (tonco.yaml "Tonco swap TON -> USDT failed")',
}

def main(root):
    out = {
        'source': 'github.com/toncenter/ton-indexer@eb9fbfa3212a583d3eef672f74b98600dfdd898c indexer/tests/traces/*.lz4 (mainnet traces), extracted by extract.py',
        'traces': [],
    }
    for tid, about in TRACES.items():
        raw = subprocess.run(['lz4', '-dc', os.path.join(root, 'indexer/tests/traces', tid.replace('/', '_') + '.lz4')],
                             capture_output=True, check=True).stdout
        d, _ = unpack(raw)
        itf = d['interfaces']
        def owner(a):
            jw = (itf.get(a) or {}).get('JettonWallet')
            return {'owner': jw['owner'], 'jetton': jw['jetton']} if jw else None
        msgs = []
        for t in sorted(d['transactions'], key=lambda t: t['lt']):
            for m in t['messages']:
                if m['direction'] != 'in' or m['source'] is None:
                    continue
                msgs.append({
                    'from': m['source'], 'to': m['destination'], 'to_jetton_wallet_of': owner(m['destination']),
                    'op': None if m['opcode'] is None else '0x%08x' % (m['opcode'] & 0xffffffff),
                    'value': str(m['value']), 'fwd_fee': str(m['fwd_fee']),
                    'exit_code': t['compute_exit_code'], 'aborted': t['aborted'],
                    'body': (m.get('message_content') or {}).get('body'),
                })
        out['traces'].append({'id': tid, 'about': about, 'messages': msgs})
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write('\n')

if __name__ == '__main__':
    main(sys.argv[1])
