//! The media library (what the gallery and `mediatool` see): photo and video assets, each with
//! a file id, a display name, a title (`VID_<seconds>_<seq>`), its file under
//! `/storage/cloud/100/files/Photo/<bucket>/` and its `file://media/Photo/<id>/<title>/<name>`
//! URI, as the OpenHarmony media library names them.

use super::Phone;
use std::time::{SystemTime, UNIX_EPOCH};

/// Assets are spread over 16 bucket directories by file id, as the media library does.
const BUCKETS: u32 = 16;

/// One asset of the media library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaAsset {
    pub id: u32,
    pub display_name: String,
    /// `VID_<seconds>_<seq>` / `IMG_<seconds>_<seq>`.
    pub title: String,
    /// The asset's file on the device.
    pub path: String,
}

impl MediaAsset {
    /// `file://media/Photo/<id>/<title>/<display name>`.
    pub fn uri(&self) -> String {
        format!(
            "file://media/Photo/{}/{}/{}",
            self.id, self.title, self.display_name
        )
    }
}

/// The table a display name belongs to by its extension (`Photos` for images and videos,
/// `Audios` for audio), as `mediatool` decides; `None` for other names.
pub fn table_of(display_name: &str) -> Option<&'static str> {
    let ext = display_name.rsplit_once('.')?.1.to_ascii_lowercase();
    match ext.as_str() {
        "jpg" | "jpeg" | "png" | "gif" | "bmp" | "webp" | "heic" | "heif" | "mp4" | "mov"
        | "3gp" | "mkv" | "ts" => Some("Photos"),
        "mp3" | "aac" | "flac" | "wav" | "m4a" | "ogg" | "amr" => Some("Audios"),
        _ => None,
    }
}

impl Phone {
    /// Adds `bytes` to the media library under `display_name`; returns the new asset.
    pub fn add_media(&mut self, display_name: &str, bytes: Vec<u8>, now: SystemTime) -> MediaAsset {
        self.next_media_id += 1;
        let id = self.next_media_id;
        let secs = now
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let video = display_name.to_ascii_lowercase().ends_with(".mp4");
        let prefix = if video { "VID" } else { "IMG" };
        let title = format!("{prefix}_{secs}_{:03}", id % 1000);
        let ext = display_name.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
        let bucket = match id % BUCKETS {
            0 => BUCKETS,
            b => b,
        };
        let path = format!("/storage/cloud/100/files/Photo/{bucket}/{title}.{ext}");
        self.fs.write(&path, bytes);
        let asset = MediaAsset {
            id,
            display_name: display_name.to_string(),
            title,
            path,
        };
        self.media.push(asset.clone());
        asset
    }

    /// Every asset, oldest first.
    pub fn media(&self) -> &[MediaAsset] {
        &self.media
    }

    /// Removes an asset and its file; false when no asset has that id.
    pub fn delete_media(&mut self, id: u32) -> bool {
        let Some(i) = self.media.iter().position(|a| a.id == id) else {
            return false;
        };
        let a = self.media.remove(i);
        self.fs.remove(&a.path);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_by_extension() {
        assert_eq!(table_of("x.MP4"), Some("Photos"));
        assert_eq!(table_of("a.jpg"), Some("Photos"));
        assert_eq!(table_of("s.mp3"), Some("Audios"));
        assert_eq!(table_of("IMG_001"), None);
        assert_eq!(table_of("notes.txt"), None);
    }
}
