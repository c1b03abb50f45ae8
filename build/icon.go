// Package build holds the assets of packaged builds. Its Go side is the
// application icon, embedded so the desktop window can show it without the
// file beside the binary.
package build

import _ "embed"

// AppIcon is appicon.png: the 512×512 application icon.
//
//go:embed appicon.png
var AppIcon []byte
