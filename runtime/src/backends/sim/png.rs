//! A tiny PNG of the simulated screen: a quarter-scale wireframe of every node's rectangle
//! (stored deflate blocks, no compression library needed).

use crate::core::backend::Capture;
use crate::core::tree::Node;

const SCALE: f64 = 0.25;

pub fn render(cap: &Capture) -> Vec<u8> {
    let w = ((cap.viewport.width * SCALE).ceil() as usize).max(1);
    let h = ((cap.viewport.height * SCALE).ceil() as usize).max(1);
    let mut px = vec![245u8; w * h * 3];
    fn draw(n: &Node, depth: usize, px: &mut [u8], w: usize, h: usize) {
        if let Some(r) = n.rect {
            let shade = (200usize.saturating_sub(depth * 30)) as u8;
            let x0 = (r.x * SCALE).max(0.0) as usize;
            let y0 = (r.y * SCALE).max(0.0) as usize;
            let x1 = (((r.x + r.width) * SCALE) as usize).min(w.saturating_sub(1));
            let y1 = (((r.y + r.height) * SCALE) as usize).min(h.saturating_sub(1));
            let mut put = |x: usize, y: usize| {
                if x < w && y < h {
                    let i = (y * w + x) * 3;
                    px[i] = shade;
                    px[i + 1] = shade;
                    px[i + 2] = if n.hittable { 255 } else { shade };
                }
            };
            for x in x0..=x1.max(x0) {
                put(x, y0);
                put(x, y1);
            }
            for y in y0..=y1.max(y0) {
                put(x0, y);
                put(x1, y);
            }
        }
        for c in &n.children {
            draw(c, depth + 1, px, w, h);
        }
    }
    for r in &cap.roots {
        draw(r, 0, &mut px, w, h);
    }
    encode(w, h, &px)
}

fn crc32(data: &[u8]) -> u32 {
    let mut c = 0xffff_ffffu32;
    for &b in data {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &x in data {
        a = (a + x as u32) % 65_521;
        b = (b + a) % 65_521;
    }
    (b << 16) | a
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let mut c = kind.to_vec();
    c.extend_from_slice(data);
    out.extend_from_slice(&c);
    out.extend_from_slice(&crc32(&c).to_be_bytes());
}

/// Encodes 8-bit RGB pixels as a PNG.
pub fn encode(w: usize, h: usize, rgb: &[u8]) -> Vec<u8> {
    let mut raw = Vec::with_capacity((w * 3 + 1) * h);
    for y in 0..h {
        raw.push(0);
        raw.extend_from_slice(&rgb[y * w * 3..(y + 1) * w * 3]);
    }
    let mut z = vec![0x78, 0x01];
    let mut chunks = raw.chunks(65_535).peekable();
    while let Some(block) = chunks.next() {
        z.push(u8::from(chunks.peek().is_none()));
        let len = block.len() as u16;
        z.extend_from_slice(&len.to_le_bytes());
        z.extend_from_slice(&(!len).to_le_bytes());
        z.extend_from_slice(block);
    }
    if raw.is_empty() {
        z.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    z.extend_from_slice(&adler32(&raw).to_be_bytes());
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&(w as u32).to_be_bytes());
    ihdr.extend_from_slice(&(h as u32).to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &z);
    chunk(&mut out, b"IEND", &[]);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn crc_matches_reference() {
        assert_eq!(super::crc32(b"IEND"), 0xae42_6082);
    }
}
