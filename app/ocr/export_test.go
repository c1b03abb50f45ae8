package ocr

// ForgetEngine lets the external tests change PATH between engines.
var ForgetEngine = forgetEngine

// MultiTIFF writes grey frames as one multi-page TIFF.
var MultiTIFF = multiTIFF
