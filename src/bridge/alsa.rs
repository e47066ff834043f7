//! ALSA's PCM API, loaded at run time: `libasound.so.2` is opened with `dlopen` the first
//! time the bridge starts, so building and testing rigweb needs no ALSA headers or
//! development package and the ARM cross builds need no ALSA in their sysroots; a
//! machine without libasound gets a clear error when the bridge starts, nothing else
//! changes. Only the dozen functions the bridge uses are looked up; every `unsafe` call
//! into the library is in this file.
//!
//! PCMs are opened non-blocking, 48 kHz mono S16LE, interleaved.

use std::ffi::{CStr, CString, c_char, c_int, c_long, c_uint, c_ulong, c_void};
use std::sync::OnceLock;
use std::time::Duration;

/// The library's file name (the runtime package `libasound2`).
pub const LIBRARY: &str = "libasound.so.2";

const STREAM_PLAYBACK: c_int = 0;
const STREAM_CAPTURE: c_int = 1;
const NONBLOCK: c_int = 1;
const FORMAT_S16_LE: c_int = 2;
const ACCESS_RW_INTERLEAVED: c_int = 3;

type Handle = c_void;

/// The functions the bridge uses (signatures of alsa/pcm.h and alsa/error.h).
struct Lib {
    open: unsafe extern "C" fn(*mut *mut Handle, *const c_char, c_int, c_int) -> c_int,
    close: unsafe extern "C" fn(*mut Handle) -> c_int,
    set_params:
        unsafe extern "C" fn(*mut Handle, c_int, c_int, c_uint, c_uint, c_int, c_uint) -> c_int,
    writei: unsafe extern "C" fn(*mut Handle, *const c_void, c_ulong) -> c_long,
    readi: unsafe extern "C" fn(*mut Handle, *mut c_void, c_ulong) -> c_long,
    recover: unsafe extern "C" fn(*mut Handle, c_int, c_int) -> c_int,
    wait: unsafe extern "C" fn(*mut Handle, c_int) -> c_int,
    delay: unsafe extern "C" fn(*mut Handle, *mut c_long) -> c_int,
    start: unsafe extern "C" fn(*mut Handle) -> c_int,
    strerror: unsafe extern "C" fn(c_int) -> *const c_char,
    sw_malloc: unsafe extern "C" fn(*mut *mut c_void) -> c_int,
    sw_free: unsafe extern "C" fn(*mut c_void),
    sw_current: unsafe extern "C" fn(*mut Handle, *mut c_void) -> c_int,
    sw_start_threshold: unsafe extern "C" fn(*mut Handle, *mut c_void, c_ulong) -> c_int,
    sw_params: unsafe extern "C" fn(*mut Handle, *mut c_void) -> c_int,
}

fn dlerror() -> String {
    // SAFETY: dlerror returns null or a NUL-terminated string valid until the next call.
    let p = unsafe { libc::dlerror() };
    if p.is_null() {
        "unknown error".into()
    } else {
        // SAFETY: checked non-null above; read at once.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

/// Looks up `name` in `lib` as a function pointer of type `F`.
///
/// # Safety
/// `F` must be the C signature of `name`.
unsafe fn symbol<F: Copy>(lib: *mut c_void, name: &CStr) -> Result<F, String> {
    // SAFETY: `lib` is a live handle of dlopen; `name` is NUL-terminated.
    let p = unsafe { libc::dlsym(lib, name.as_ptr()) };
    if p.is_null() {
        return Err(format!(
            "{LIBRARY} lacks {}: {}",
            name.to_string_lossy(),
            dlerror()
        ));
    }
    debug_assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*mut c_void>());
    // SAFETY: a function pointer of the symbol's own signature (the caller's contract).
    Ok(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) })
}

fn load() -> Result<Lib, String> {
    let file = CString::new(LIBRARY).map_err(|e| e.to_string())?;
    // SAFETY: a NUL-terminated file name; the handle is kept for the process's life
    // (ALSA keeps global state, so it is never closed).
    let lib = unsafe { libc::dlopen(file.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if lib.is_null() {
        return Err(format!(
            "{LIBRARY} could not be loaded ({}): install the ALSA library (Debian: apt install libasound2)",
            dlerror()
        ));
    }
    // SAFETY: each type below is the C signature of its symbol in alsa/pcm.h.
    unsafe {
        Ok(Lib {
            open: symbol(lib, c"snd_pcm_open")?,
            close: symbol(lib, c"snd_pcm_close")?,
            set_params: symbol(lib, c"snd_pcm_set_params")?,
            writei: symbol(lib, c"snd_pcm_writei")?,
            readi: symbol(lib, c"snd_pcm_readi")?,
            recover: symbol(lib, c"snd_pcm_recover")?,
            wait: symbol(lib, c"snd_pcm_wait")?,
            delay: symbol(lib, c"snd_pcm_delay")?,
            start: symbol(lib, c"snd_pcm_start")?,
            strerror: symbol(lib, c"snd_strerror")?,
            sw_malloc: symbol(lib, c"snd_pcm_sw_params_malloc")?,
            sw_free: symbol(lib, c"snd_pcm_sw_params_free")?,
            sw_current: symbol(lib, c"snd_pcm_sw_params_current")?,
            sw_start_threshold: symbol(lib, c"snd_pcm_sw_params_set_start_threshold")?,
            sw_params: symbol(lib, c"snd_pcm_sw_params")?,
        })
    }
}

fn lib() -> Result<&'static Lib, AlsaError> {
    static LIB: OnceLock<Result<Lib, String>> = OnceLock::new();
    LIB.get_or_init(load).as_ref().map_err(|m| AlsaError {
        kind: AlsaErrorKind::LibraryMissing,
        message: m.clone(),
    })
}

/// What went wrong, for the HTTP status of the bridge routes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlsaErrorKind {
    /// No `libasound.so.2` (or one without the functions).
    LibraryMissing,
    /// No such device (for the loopback: snd-aloop not loaded).
    NotFound,
    /// Another program holds the device.
    Busy,
    /// Anything else (permissions, formats, a device that went away).
    Other,
}

/// An ALSA error with a message a user can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlsaError {
    /// Kind.
    pub kind: AlsaErrorKind,
    /// Message.
    pub message: String,
}

impl std::fmt::Display for AlsaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The kind of a negative errno from `snd_pcm_open`.
pub fn open_error_kind(err: i32) -> AlsaErrorKind {
    match -err {
        libc::ENOENT | libc::ENODEV | libc::ENXIO => AlsaErrorKind::NotFound,
        libc::EBUSY | libc::EAGAIN => AlsaErrorKind::Busy,
        _ => AlsaErrorKind::Other,
    }
}

/// Which way the audio goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// To the device (RX audio of the radio).
    Playback,
    /// From the device (TX audio for the radio).
    Capture,
}

/// An open PCM (closed on drop).
pub struct Pcm {
    lib: &'static Lib,
    handle: *mut Handle,
    name: String,
}

// SAFETY: an ALSA PCM handle may be used from any thread as long as one thread uses it
// at a time; `Pcm` is owned by exactly one bridge thread and is not `Sync`.
unsafe impl Send for Pcm {}

impl Pcm {
    fn error(&self, what: &str, err: c_int) -> AlsaError {
        error(self.lib, &self.name, what, err, AlsaErrorKind::Other)
    }

    /// Opens `name` for `dir` as 48 kHz mono S16LE with a buffer of `buffer` and, for
    /// playback, the stream starting once `start_frames` are queued.
    pub fn open(
        name: &str,
        dir: Direction,
        rate: u32,
        buffer: Duration,
        start_frames: usize,
    ) -> Result<Pcm, AlsaError> {
        let lib = lib()?;
        let cname = CString::new(name).map_err(|_| AlsaError {
            kind: AlsaErrorKind::NotFound,
            message: format!("{name:?} is not an ALSA device name"),
        })?;
        let stream = match dir {
            Direction::Playback => STREAM_PLAYBACK,
            Direction::Capture => STREAM_CAPTURE,
        };
        let mut handle: *mut Handle = std::ptr::null_mut();
        // SAFETY: valid out pointer and NUL-terminated name.
        let rc = unsafe { (lib.open)(&mut handle, cname.as_ptr(), stream, NONBLOCK) };
        if rc < 0 || handle.is_null() {
            return Err(error(lib, name, "open", rc, open_error_kind(rc)));
        }
        let pcm = Pcm {
            lib,
            handle,
            name: name.to_string(),
        };
        let latency = buffer.as_micros().min(u128::from(u32::MAX)) as c_uint;
        // SAFETY: an open handle; plain integer arguments.
        let rc = unsafe {
            (lib.set_params)(
                pcm.handle,
                FORMAT_S16_LE,
                ACCESS_RW_INTERLEAVED,
                1,
                rate,
                1,
                latency,
            )
        };
        if rc < 0 {
            return Err(pcm.error("48 kHz mono S16LE", rc));
        }
        match dir {
            Direction::Playback => pcm.set_start_threshold(start_frames)?,
            Direction::Capture => {
                // SAFETY: an open, prepared handle.
                let rc = unsafe { (lib.start)(pcm.handle) };
                if rc < 0 {
                    return Err(pcm.error("start", rc));
                }
            }
        }
        Ok(pcm)
    }

    fn set_start_threshold(&self, frames: usize) -> Result<(), AlsaError> {
        let lib = self.lib;
        let mut sw: *mut c_void = std::ptr::null_mut();
        // SAFETY: valid out pointer; freed below on every path.
        let rc = unsafe { (lib.sw_malloc)(&mut sw) };
        if rc < 0 || sw.is_null() {
            return Err(self.error("software parameters", rc));
        }
        // SAFETY: an open handle and the allocated parameter block.
        let rc = unsafe {
            let mut rc = (lib.sw_current)(self.handle, sw);
            if rc >= 0 {
                rc = (lib.sw_start_threshold)(self.handle, sw, frames as c_ulong);
            }
            if rc >= 0 {
                rc = (lib.sw_params)(self.handle, sw);
            }
            (lib.sw_free)(sw);
            rc
        };
        if rc < 0 {
            return Err(self.error("start threshold", rc));
        }
        Ok(())
    }

    /// Writes mono samples without blocking; returns how many were taken (fewer when
    /// the buffer is full). An underrun is recovered from and the write retried once.
    pub fn write(&mut self, samples: &[i16]) -> Result<usize, AlsaError> {
        for _ in 0..2 {
            // SAFETY: an open handle; the buffer holds `samples.len()` mono frames.
            let n = unsafe {
                (self.lib.writei)(
                    self.handle,
                    samples.as_ptr().cast(),
                    samples.len() as c_ulong,
                )
            };
            if n >= 0 {
                return Ok(n as usize);
            }
            let err = n as c_int;
            if err == -libc::EAGAIN {
                return Ok(0);
            }
            self.recover(err)?;
        }
        Ok(0)
    }

    /// Reads mono samples without blocking; returns how many (0 when none are ready). An
    /// overrun is recovered from.
    pub fn read(&mut self, buf: &mut [i16]) -> Result<usize, AlsaError> {
        // SAFETY: an open handle; the buffer has room for `buf.len()` mono frames.
        let n =
            unsafe { (self.lib.readi)(self.handle, buf.as_mut_ptr().cast(), buf.len() as c_ulong) };
        if n >= 0 {
            return Ok(n as usize);
        }
        let err = n as c_int;
        if err == -libc::EAGAIN {
            return Ok(0);
        }
        self.recover(err)?;
        // a recovered capture stream must be started again
        // SAFETY: an open, prepared handle.
        let rc = unsafe { (self.lib.start)(self.handle) };
        if rc < 0 {
            return Err(self.error("restart", rc));
        }
        Ok(0)
    }

    fn recover(&mut self, err: c_int) -> Result<(), AlsaError> {
        log::debug!("ALSA {}: recovering from {}", self.name, err);
        // SAFETY: an open handle; `silent` = 1.
        let rc = unsafe { (self.lib.recover)(self.handle, err, 1) };
        if rc < 0 {
            return Err(self.error("I/O", err));
        }
        Ok(())
    }

    /// Waits up to `timeout` for the device to be ready; false on timeout.
    pub fn wait(&mut self, timeout: Duration) -> Result<bool, AlsaError> {
        let ms = timeout.as_millis().min(i32::MAX as u128) as c_int;
        // SAFETY: an open handle.
        let rc = unsafe { (self.lib.wait)(self.handle, ms) };
        match rc {
            1 => Ok(true),
            0 => Ok(false),
            err => {
                self.recover(err)?;
                Ok(false)
            }
        }
    }

    /// Frames queued in the device (playback), if it can tell.
    pub fn delay(&mut self) -> Option<i64> {
        let mut d: c_long = 0;
        // SAFETY: an open handle and a valid out pointer.
        let rc = unsafe { (self.lib.delay)(self.handle, &mut d) };
        // `c_long` is 32 bits on armv7
        #[allow(clippy::useless_conversion)]
        let d = i64::from(d);
        (rc >= 0).then_some(d.max(0))
    }
}

impl Drop for Pcm {
    fn drop(&mut self) {
        // SAFETY: the handle is open and not used after this.
        unsafe {
            (self.lib.close)(self.handle);
        }
    }
}

fn error(lib: &Lib, name: &str, what: &str, err: c_int, kind: AlsaErrorKind) -> AlsaError {
    // SAFETY: snd_strerror returns a static NUL-terminated string for any code.
    let text = unsafe {
        let p = (lib.strerror)(err);
        if p.is_null() {
            format!("error {err}")
        } else {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    };
    let hint = match kind {
        AlsaErrorKind::NotFound if name.contains("Loopback") => {
            " (the snd-aloop loopback is not loaded: sudo modprobe snd-aloop)"
        }
        AlsaErrorKind::NotFound => " (see aplay -L for the devices of this machine)",
        AlsaErrorKind::Busy => " (another program is using it)",
        _ if err == -libc::EACCES => " (add the user to the audio group)",
        _ => "",
    };
    AlsaError {
        kind,
        message: format!("ALSA device {name}: {what}: {text}{hint}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_errors_are_told_apart() {
        assert_eq!(open_error_kind(-libc::ENOENT), AlsaErrorKind::NotFound);
        assert_eq!(open_error_kind(-libc::ENODEV), AlsaErrorKind::NotFound);
        assert_eq!(open_error_kind(-libc::EBUSY), AlsaErrorKind::Busy);
        assert_eq!(open_error_kind(-libc::EACCES), AlsaErrorKind::Other);
    }
}
