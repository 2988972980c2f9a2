//! Reading the files a user names (config files, data files, output folders read back), each
//! whole and at most a stated size: a larger file, or an endless one such as `/dev/zero`, is
//! refused after reading one byte past the limit, so no input can exhaust memory.

use std::io::Read;
use std::path::Path;

/// Why a file could not be read by [`read_bytes`] or [`read_text`].
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be opened or read.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The file holds more than `limit` bytes.
    #[error("it is larger than {}", size(*.limit))]
    TooLarge {
        /// The most the file may hold, in bytes.
        limit: u64,
    },
    /// The file is not UTF-8 text.
    #[error("not UTF-8 text (invalid byte at offset {offset})")]
    NotUtf8 {
        /// The offset of the first byte that is not UTF-8, in bytes from the start.
        offset: usize,
    },
}

impl ReadError {
    /// Whether the file does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::Io(error) if error.kind() == std::io::ErrorKind::NotFound)
    }
}

/// A limit as people say it: `1 MiB`, `32 MiB`, `4 GiB`, or bytes below 1 KiB.
pub fn size(bytes: u64) -> String {
    match bytes {
        bytes if bytes >= 1 << 30 && bytes % (1 << 30) == 0 => format!("{} GiB", bytes >> 30),
        bytes if bytes >= 1 << 20 && bytes % (1 << 20) == 0 => format!("{} MiB", bytes >> 20),
        bytes if bytes >= 1 << 10 && bytes % (1 << 10) == 0 => format!("{} KiB", bytes >> 10),
        bytes => format!("{bytes} bytes"),
    }
}

/// The bytes of the file at `path`, refused when it holds more than `limit` bytes.
pub fn read_bytes(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { limit });
    }
    Ok(bytes)
}

/// The UTF-8 text of the file at `path`, refused when it holds more than `limit` bytes.
pub fn read_text(path: &Path, limit: u64) -> Result<String, ReadError> {
    String::from_utf8(read_bytes(path, limit)?).map_err(|error| ReadError::NotUtf8 {
        offset: error.utf8_error().valid_up_to(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("simulate-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn a_file_at_the_limit_is_read_and_one_byte_more_is_refused() {
        let path = file("ten", b"0123456789");
        assert_eq!(read_bytes(&path, 10).unwrap(), b"0123456789");
        assert!(matches!(
            read_bytes(&path, 9),
            Err(ReadError::TooLarge { limit: 9 })
        ));
    }

    #[test]
    fn an_endless_file_is_refused_after_the_limit() {
        let endless = Path::new("/dev/zero");
        if endless.exists() {
            assert!(matches!(
                read_bytes(endless, 1 << 16),
                Err(ReadError::TooLarge { .. })
            ));
        }
    }

    #[test]
    fn text_names_the_first_byte_that_is_not_utf8() {
        let path = file("latin1", b"ab\xe9c");
        assert!(matches!(
            read_text(&path, 100),
            Err(ReadError::NotUtf8 { offset: 2 })
        ));
        let missing = path.with_file_name("absent");
        assert!(read_text(&missing, 100).unwrap_err().is_not_found());
    }

    #[test]
    fn sizes_are_said_in_binary_units() {
        assert_eq!(size(1 << 20), "1 MiB");
        assert_eq!(size(32 << 20), "32 MiB");
        assert_eq!(size(4 << 30), "4 GiB");
        assert_eq!(size(1536), "1536 bytes");
        assert_eq!(size(2048), "2 KiB");
    }
}
