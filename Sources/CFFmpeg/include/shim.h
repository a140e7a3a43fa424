// The FFmpeg headers Tessera uses, plus prefixed functions for the macros Swift cannot import
// (function-like macros and casts in constant expressions). Nothing else lives here.
#ifndef TESSERA_CFFMPEG_SHIM_H
#define TESSERA_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libavutil/avutil.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/dovi_meta.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/timecode.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/samplefmt.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <errno.h>

/// AVERROR(e) is a function-like macro.
static inline int tessera_AVERROR(int e) { return AVERROR(e); }
/// AVERROR_EOF is built with FFERRTAG, which Swift cannot evaluate.
static inline int tessera_AVERROR_EOF(void) { return AVERROR_EOF; }
/// AVERROR(EAGAIN), the "send more input / drain output first" code of the send/receive API.
static inline int tessera_AVERROR_EAGAIN(void) { return AVERROR(EAGAIN); }
/// AVERROR_INVALIDDATA is built with FFERRTAG.
static inline int tessera_AVERROR_INVALIDDATA(void) { return AVERROR_INVALIDDATA; }
/// AVERROR_DECODER_NOT_FOUND is built with FFERRTAG.
static inline int tessera_AVERROR_DECODER_NOT_FOUND(void) { return AVERROR_DECODER_NOT_FOUND; }
/// AV_NOPTS_VALUE is a cast of UINT64_C(0x8000000000000000).
static inline int64_t tessera_AV_NOPTS_VALUE(void) { return AV_NOPTS_VALUE; }
/// AV_TIME_BASE_Q is a compound literal.
static inline AVRational tessera_AV_TIME_BASE_Q(void) { return AV_TIME_BASE_Q; }

#endif
