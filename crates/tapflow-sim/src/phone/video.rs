//! MP4 files of a screen recording: one Motion-JPEG video track (QuickTime `jpeg` sample entry,
//! which ffmpeg, VLC and mpv play), each frame a baseline JPEG shown for its own duration. The
//! boxes are built and encoded with `mp4-atom`; this module only decides their contents.

use mp4_atom::{
    Codec, Dinf, Dref, DrefEntry, Encode, FixedPoint, Ftyp, Hdlr, Jpeg, Mdat, Mdhd, Mdia, Minf,
    Moov, Mvhd, Stbl, Stco, Stsc, StscEntry, Stsd, Stsz, StszSamples, Stts, SttsEntry, Tkhd, Trak,
    Url, Visual, Vmhd,
};

/// Media time units per second (milliseconds).
pub const TIMESCALE: u32 = 1000;

/// One encoded frame and how long it stays on screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VideoFrame {
    pub jpeg: Vec<u8>,
    pub duration_ms: u32,
}

/// Seconds between 1904-01-01 (the MP4 epoch) and 1970-01-01.
const MP4_EPOCH_OFFSET: u64 = 2_082_844_800;

/// Muxes `frames` (all `width`x`height`) into a complete MP4 file: `ftyp`, `moov`, `mdat`.
/// `created` is seconds since the Unix epoch.
pub fn mjpeg_mp4(
    frames: &[VideoFrame],
    width: u16,
    height: u16,
    created: u64,
) -> Result<Vec<u8>, String> {
    let ftyp = Ftyp {
        major_brand: b"isom".into(),
        minor_version: 512,
        compatible_brands: vec![b"isom".into(), b"iso2".into(), b"mp41".into()],
    };
    let mut head = Vec::new();
    ftyp.encode(&mut head).map_err(|e| e.to_string())?;
    // The moov box size does not depend on the chunk offset (a fixed 32-bit field), so encode it
    // once to learn where the samples start, then again with the real offset.
    let probe = moov(frames, width, height, created, 0)?;
    let data_start = head.len() + probe.len() + 8;
    let offset = u32::try_from(data_start).map_err(|_| "moov too large".to_string())?;
    head.extend_from_slice(&moov(frames, width, height, created, offset)?);
    let mdat = Mdat {
        data: frames.iter().flat_map(|f| f.jpeg.iter().copied()).collect(),
    };
    mdat.encode(&mut head).map_err(|e| e.to_string())?;
    Ok(head)
}

fn moov(
    frames: &[VideoFrame],
    width: u16,
    height: u16,
    created: u64,
    chunk_offset: u32,
) -> Result<Vec<u8>, String> {
    let duration: u64 = frames.iter().map(|f| u64::from(f.duration_ms)).sum();
    let time = created + MP4_EPOCH_OFFSET;
    let sizes = frames
        .iter()
        .map(|f| u32::try_from(f.jpeg.len()).map_err(|_| "frame too large".to_string()))
        .collect::<Result<Vec<u32>, String>>()?;
    let moov = Moov {
        mvhd: Mvhd {
            creation_time: time,
            modification_time: time,
            timescale: TIMESCALE,
            duration,
            rate: FixedPoint::new(1, 0),
            volume: FixedPoint::new(1, 0),
            next_track_id: 2,
            ..Default::default()
        },
        trak: vec![Trak {
            tkhd: Tkhd {
                creation_time: time,
                modification_time: time,
                track_id: 1,
                duration,
                enabled: true,
                in_movie: true,
                width: FixedPoint::new(width, 0),
                height: FixedPoint::new(height, 0),
                ..Default::default()
            },
            mdia: Mdia {
                mdhd: Mdhd {
                    creation_time: time,
                    modification_time: time,
                    timescale: TIMESCALE,
                    duration,
                    language: "und".into(),
                },
                hdlr: Hdlr {
                    handler: b"vide".into(),
                    name: "VideoHandler".into(),
                },
                minf: Minf {
                    vmhd: Some(Vmhd::default()),
                    dinf: Dinf {
                        dref: Dref {
                            entries: vec![DrefEntry::Url(Url::default())],
                        },
                    },
                    stbl: Stbl {
                        stsd: Stsd {
                            codecs: vec![Codec::Jpeg(Jpeg {
                                visual: Visual {
                                    data_reference_index: 1,
                                    width,
                                    height,
                                    compressor: "Photo - JPEG".into(),
                                    ..Default::default()
                                },
                                ..Default::default()
                            })],
                        },
                        stts: Stts {
                            entries: frames
                                .iter()
                                .map(|f| SttsEntry {
                                    sample_count: 1,
                                    sample_delta: f.duration_ms,
                                })
                                .collect(),
                        },
                        stsc: Stsc {
                            entries: vec![StscEntry {
                                first_chunk: 1,
                                samples_per_chunk: sizes.len() as u32,
                                sample_description_index: 1,
                            }],
                        },
                        stsz: Stsz {
                            samples: StszSamples::Different { sizes },
                        },
                        stco: Some(Stco {
                            entries: vec![chunk_offset],
                        }),
                        ..Default::default()
                    },
                    ..Default::default()
                },
            },
            ..Default::default()
        }],
        ..Default::default()
    };
    let mut out = Vec::new();
    moov.encode(&mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mp4_atom::{Any, Decode};

    #[test]
    fn boxes_decode_back_with_the_samples_where_stco_says() {
        let frames = vec![
            VideoFrame {
                jpeg: vec![0xFF, 0xD8, 1, 2, 0xFF, 0xD9],
                duration_ms: 400,
            },
            VideoFrame {
                jpeg: vec![0xFF, 0xD8, 3, 0xFF, 0xD9],
                duration_ms: 600,
            },
        ];
        let bytes = mjpeg_mp4(&frames, 64, 32, 1_700_000_000).unwrap();
        let mut buf = bytes.as_slice();
        let mut moov = None;
        while !buf.is_empty() {
            if let Any::Moov(m) = Any::decode(&mut buf).unwrap() {
                moov = Some(m);
            }
        }
        let moov = moov.unwrap();
        assert_eq!(moov.mvhd.duration, 1000);
        let stbl = &moov.trak[0].mdia.minf.stbl;
        assert!(matches!(stbl.stsd.codecs[0], Codec::Jpeg(_)));
        let off = stbl.stco.as_ref().unwrap().entries[0] as usize;
        assert_eq!(&bytes[off..off + 6], &frames[0].jpeg[..]);
        assert_eq!(&bytes[off + 6..off + 11], &frames[1].jpeg[..]);
    }
}
