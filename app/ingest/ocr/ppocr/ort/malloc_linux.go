package ort

import "github.com/ebitengine/purego"

// mArenaMax is glibc's M_ARENA_MAX, the most malloc arenas it makes.
const mArenaMax = -8

// oneMallocArena asks glibc to keep ONNX Runtime's allocations in one
// malloc arena. glibc makes an arena, reserving 64 MB of address space,
// for each thread that allocates while others hold theirs, and Go runs
// the runtime's calls on whichever thread is free: a reader child's
// address space grew by about 100 MB a page, and the pool retired it
// (app/ingest/pdftext, Limits.Retain) every third or fourth page, so the
// next child loaded the models again. A child reads one page at a time,
// so one arena costs no waiting. Where there is no glibc (musl, another
// system) this does nothing.
func oneMallocArena() {
	libc, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return
	}
	sym, err := purego.Dlsym(libc, "mallopt")
	if err != nil || sym == 0 {
		return
	}
	var mallopt func(param, value int32) int32
	purego.RegisterFunc(&mallopt, sym)
	mallopt(mArenaMax, 1)
}
