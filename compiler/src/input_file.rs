//! Reading one input file from the disk: the single reader behind scripts (`cli/src/files.rs`),
//! included fragments and pin snapshots (`compose::FsFiles`) and recorded fixtures
//! (`runtime::recorded`). Every read is capped (the bytes past the cap are never read, so
//! `/dev/zero` or a runaway pipe cannot exhaust memory) and a file named by another file (a
//! fragment, an observation, a session log) must be a regular file: its type is checked before
//! it is opened, and it is opened non-blocking, so a FIFO or a device never blocks or feeds the
//! reader.

use std::io::Read;
use std::path::Path;

/// What the reader accepts besides a regular file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accept {
    /// A regular file only (links followed): what one file names (an include, a fixture's
    /// observation) is never a FIFO or a device.
    RegularFile,
    /// Whatever the user named on the command line (a process substitution's pipe, a
    /// terminal), still capped.
    Named,
}

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// It could not be opened or read (missing, no permission, …).
    Io(std::io::Error),
    /// It is not a regular file: what it is (`a FIFO`, `a folder`, …). Not opened.
    NotRegular(&'static str),
    /// It is over `limit` bytes: its size when known (a regular file, refused unread), `None`
    /// for a stream cut off at the limit.
    TooLarge { size: Option<u64>, limit: u64 },
}

impl ReadError {
    /// The file (or a link's target) does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, ReadError::Io(e) if e.kind() == std::io::ErrorKind::NotFound)
    }
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::NotRegular(kind) => write!(f, "{kind}, not a regular file: not read"),
            ReadError::TooLarge {
                size: Some(size),
                limit,
            } => write!(
                f,
                "the file is {size} bytes, over the {limit}-byte limit: not read"
            ),
            ReadError::TooLarge { size: None, limit } => {
                write!(f, "the input is over the {limit}-byte limit: not read")
            }
        }
    }
}

/// What a file that is not a regular one is, for messages.
pub fn kind_of(ty: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ty.is_fifo() {
            return "a FIFO";
        } else if ty.is_socket() {
            return "a socket";
        } else if ty.is_char_device() || ty.is_block_device() {
            return "a device";
        }
    }
    if ty.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

/// Reads `path`, at most `limit` bytes (see [`Accept`]).
pub fn read(path: &Path, limit: u64, accept: Accept) -> Result<Vec<u8>, ReadError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    if accept == Accept::RegularFile {
        // The type first: opening a FIFO blocks until a writer comes.
        let ty = std::fs::metadata(path).map_err(ReadError::Io)?.file_type();
        if !ty.is_file() {
            return Err(ReadError::NotRegular(kind_of(ty)));
        }
        // And non-blocking, should it be swapped for a FIFO in between (no effect on a
        // regular file's reads).
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags(libc::O_NONBLOCK);
        }
    }
    let file = options.open(path).map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if accept == Accept::RegularFile && !meta.is_file() {
        return Err(ReadError::NotRegular(kind_of(meta.file_type())));
    }
    // A regular file's size is known: refuse it without reading a byte.
    let known = meta.is_file().then_some(meta.len());
    if let Some(size) = known.filter(|&n| n > limit) {
        return Err(ReadError::TooLarge {
            size: Some(size),
            limit,
        });
    }
    read_stream(file, limit, known.unwrap_or(0))
}

/// Reads at most `limit` bytes of a stream (one more, to know there is more); `hint` is the
/// expected size.
pub fn read_stream(reader: impl Read, limit: u64, hint: u64) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::with_capacity(hint.min(limit) as usize);
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { size: None, limit });
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("ad-input-file-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_regular_file_is_read_up_to_the_limit_and_refused_past_it_unread() {
        let dir = scratch("cap");
        let f = dir.join("a.ad");
        std::fs::write(&f, "open x\n").unwrap();
        assert_eq!(read(&f, 7, Accept::RegularFile).unwrap(), b"open x\n");
        match read(&f, 6, Accept::RegularFile) {
            Err(ReadError::TooLarge {
                size: Some(7),
                limit: 6,
            }) => {}
            other => panic!("{other:?}"),
        }
        assert!(read(&dir.join("none.ad"), 10, Accept::RegularFile)
            .unwrap_err()
            .is_not_found());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_device_is_refused_without_opening_it() {
        let dir = scratch("fifo");
        let fifo = dir.join("fifo.ad");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // No writer ever opens it: a blocking open would hang this test.
        match read(&fifo, 10, Accept::RegularFile) {
            Err(ReadError::NotRegular("a FIFO")) => {}
            other => panic!("{other:?}"),
        }
        let zero = dir.join("zero.json");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        match read(&zero, 10, Accept::RegularFile) {
            Err(ReadError::NotRegular("a device")) => {}
            other => panic!("{other:?}"),
        }
        // Named on the command line, a device is read through the cap.
        match read(&zero, 10, Accept::Named) {
            Err(ReadError::TooLarge {
                size: None,
                limit: 10,
            }) => {}
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            read(&dir, 10, Accept::RegularFile),
            Err(ReadError::NotRegular("a folder"))
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
