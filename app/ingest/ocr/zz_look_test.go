package ocr

import (
	"os"
	"strconv"
	"testing"
)

func TestZZLook(t *testing.T) {
	data, _ := os.ReadFile(os.Getenv("LOOK_PDF"))
	p, _ := strconv.Atoi(os.Getenv("LOOK_PAGE"))
	imgs, err := renderAt(data, []int{p}, os.Getenv("LOOK_DIR"), 200)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(imgs[0].File)
}
