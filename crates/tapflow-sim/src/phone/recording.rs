//! Screen recording, as the system's screen recorder does it: while a recording runs, every
//! change of what the screen shows becomes a frame stamped with its device time; stopping draws
//! the frames, muxes them into an MP4 (Motion JPEG, see `video`) and saves it into the media
//! library under the requested name (`SVID_<yyyyMMdd>_<HHmmss>_1.mp4` by default, the recorder's
//! naming seen in the media library's own tests).
//!
//! Frames are drawn at half the screen resolution (even sizes) to keep files small; drawing
//! happens once, when the recording stops.

use super::Phone;
use super::logs::sys;
use super::media::MediaAsset;
use super::render::{FrameSource, encode};
use super::video::{VideoFrame, mjpeg_mp4};
use chrono::{DateTime, Local};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tapflow_device::model::ImageFormat;

/// A running recording.
#[derive(Debug, Clone)]
pub struct Recording {
    /// The bundle whose service runs the recording (it ends with it).
    pub bundle: String,
    pub file_name: String,
    pub started: SystemTime,
    /// Screen states in time order, each from its device time on.
    frames: Vec<(SystemTime, FrameSource)>,
}

impl Phone {
    /// True while a screen recording runs.
    pub fn is_recording(&self) -> bool {
        self.recording.is_some()
    }

    /// Starts a recording for `bundle`, or stops the running one and saves it. Stopping also
    /// ends the recorder's service extension (the recorder stops itself).
    pub(super) fn toggle_screen_recording(
        &mut self,
        bundle: &str,
        file_name: &str,
        now: SystemTime,
    ) {
        let pid = self
            .procs
            .get(bundle)
            .map(|p| p.pid)
            .unwrap_or(sys::SCENEBOARD);
        if self.recording.is_some() {
            let saved = self.finish_recording(now);
            let msg = match &saved {
                Some(a) => format!("screen recording saved, uri: {}", a.uri()),
                None => "screen recording stopped, nothing saved".to_string(),
            };
            self.logs
                .push(now, pid, pid, 'I', 'A', 0x3f00, "ScreenRecorder", msg);
            let ui = match self.procs.get_mut(bundle) {
                Some(p) => {
                    p.extensions.clear();
                    p.ui
                }
                None => true,
            };
            if !ui {
                self.kill_app(bundle, now, "service extension stopped");
            }
            return;
        }
        let file_name = if file_name.trim().is_empty() {
            let t: DateTime<Local> = now.into();
            format!("SVID_{}_1.mp4", t.format("%Y%m%d_%H%M%S"))
        } else {
            file_name.trim().to_string()
        };
        self.logs.push(
            now,
            pid,
            pid,
            'I',
            'A',
            0x3f00,
            "ScreenRecorder",
            format!("start screen recording, file name: {file_name}"),
        );
        let first = self.frame_source();
        self.recording = Some(Recording {
            bundle: bundle.to_string(),
            file_name,
            started: now,
            frames: vec![(now, first)],
        });
    }

    /// Starts a recording that ends with [`Phone::finish_recording_bytes`] (Android's
    /// `screenrecord`, which writes the file itself); false when one already runs.
    pub fn start_recording(&mut self, owner: &str, now: SystemTime) -> bool {
        if self.recording.is_some() {
            return false;
        }
        let first = self.frame_source();
        self.recording = Some(Recording {
            bundle: owner.to_string(),
            file_name: String::new(),
            started: now,
            frames: vec![(now, first)],
        });
        true
    }

    /// Ends the running recording and returns its MP4, not saved anywhere.
    pub fn finish_recording_bytes(&mut self, now: SystemTime) -> Option<Vec<u8>> {
        self.capture_frame(now);
        let rec = self.recording.take()?;
        self.mux(&rec, now)
    }

    /// Records the screen as it is at `at` when it differs from the last frame. The engine calls
    /// this after every device command; delayed transitions call it at their due time.
    pub fn capture_frame(&mut self, at: SystemTime) {
        if self.recording.is_none() {
            return;
        }
        let src = self.frame_source();
        if let Some(rec) = self.recording.as_mut()
            && rec.frames.last().is_none_or(|(_, last)| *last != src)
        {
            let at = rec.frames.last().map_or(at, |(t, _)| at.max(*t));
            rec.frames.push((at, src));
        }
    }

    /// Ends the recording without saving (its recorder died).
    pub(super) fn abort_recording_of(&mut self, bundle: &str) {
        if self.recording.as_ref().is_some_and(|r| r.bundle == bundle) {
            self.recording = None;
        }
    }

    /// Draws, muxes and saves the running recording; `None` when there was none or the video
    /// could not be built (a zero-sized screen).
    fn finish_recording(&mut self, now: SystemTime) -> Option<MediaAsset> {
        self.capture_frame(now);
        let rec = self.recording.take()?;
        let bytes = self.mux(&rec, now)?;
        Some(self.add_media(&rec.file_name, bytes, now))
    }

    /// Draws a recording's frames and muxes them into an MP4.
    fn mux(&self, rec: &Recording, now: SystemTime) -> Option<Vec<u8>> {
        let (w, h) = self.profile.screen;
        let (vw, vh) = ((w / 2) & !1, (h / 2) & !1);
        if vw == 0 || vh == 0 {
            return None;
        }
        let mut frames = Vec::with_capacity(rec.frames.len());
        for (i, (at, src)) in rec.frames.iter().enumerate() {
            let until = rec.frames.get(i + 1).map_or(now, |(t, _)| *t);
            let ms = until
                .duration_since(*at)
                .unwrap_or(Duration::ZERO)
                .as_millis();
            let img =
                image::imageops::resize(&src.draw(), vw, vh, image::imageops::FilterType::Triangle);
            frames.push(VideoFrame {
                jpeg: encode(&img, ImageFormat::Jpeg),
                // Every frame lasts at least 1 ms, so players keep them all.
                duration_ms: u32::try_from(ms).unwrap_or(u32::MAX).max(1),
            });
        }
        let created = rec
            .started
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        mjpeg_mp4(&frames, vw as u16, vh as u16, created).ok()
    }
}
