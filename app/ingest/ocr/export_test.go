package ocr

import (
	"os"
	"time"
)

// ForgetEngine lets the external tests change PATH between engines.
var ForgetEngine = forgetEngine

// MultiTIFF writes grey frames as one multi-page TIFF.
var MultiTIFF = multiTIFF

// SetRetryWait shortens the pause before a vision model's page is tried
// again.
func (v *Vision) SetRetryWait(d time.Duration) { v.retryWait = d }

// ForgetPPOCR lets the external tests change the ONNX Runtime between runs.
var ForgetPPOCR = forgetPPOCR

// PPOCRLoads is how many times a PP-OCR reader child has loaded the
// models in this process.
func PPOCRLoads() int64 { return ppocrLoads.Load() }

// RenderPNG renders page (1-based) of a PDF at dpi and returns its PNG.
func RenderPNG(pdf []byte, page, dpi int, dir string) ([]byte, error) {
	imgs, err := renderAt(pdf, []int{page}, dir, dpi)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(imgs[0].File)
}
