package desktop

import (
	"github.com/wailsapp/wails/v2/pkg/menu"
	"github.com/wailsapp/wails/v2/pkg/menu/keys"
)

// menuActions are what the window's menu items do.
type menuActions struct {
	Import         func()
	OpenDataFolder func()
	Quit           func()
	About          func()
	README         func()
}

// Help menu items' labels.
const (
	aboutLabel      = "About Docent"
	dataFolderLabel = "Open data folder"
	readmeLabel     = "Docent README"
)

// appMenu is the window's menu on the system goos: File, Edit (macOS only)
// and Help. It needs no display: Wails builds the native menu from it when
// the window opens.
//
// The Edit menu with copy and paste is macOS's: there the menu's keys are
// the only way to the clipboard. Elsewhere the web view takes Ctrl+C, Ctrl+V
// and Ctrl+A itself, and Wails' Linux menu cannot build a role menu such as
// menu.EditMenu() (it has no items of its own there, and Wails reads them).
func appMenu(goos string, a menuActions) *menu.Menu {
	m := menu.NewMenu()
	if goos == "darwin" {
		m.Append(menu.AppMenu())
	}
	file := m.AddSubmenu("File")
	file.AddText("Import…", keys.CmdOrCtrl("o"), click(a.Import))
	file.AddText(dataFolderLabel, nil, click(a.OpenDataFolder))
	file.AddSeparator()
	file.AddText("Quit", keys.CmdOrCtrl("q"), click(a.Quit))
	if goos == "darwin" {
		m.Append(menu.EditMenu())
	}
	help := m.AddSubmenu("Help")
	help.AddText(aboutLabel, nil, click(a.About))
	help.AddText(dataFolderLabel, nil, click(a.OpenDataFolder))
	help.AddText(readmeLabel, nil, click(a.README))
	return m
}

// click adapts an action to a menu callback; a nil action does nothing.
func click(f func()) menu.Callback {
	return func(*menu.CallbackData) {
		if f != nil {
			f()
		}
	}
}
