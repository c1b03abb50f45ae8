package desktop

import (
	"slices"
	"strings"
	"testing"

	"github.com/wailsapp/wails/v2/pkg/menu"
	"github.com/wailsapp/wails/v2/pkg/menu/keys"
)

// describe writes a menu as text: a top-level item per line, its items
// indented, "---" for a separator, a role as "<role N>", an accelerator
// after the label.
func describe(m *menu.Menu) string {
	var b strings.Builder
	for _, top := range m.Items {
		if top.Role != 0 {
			b.WriteString("<role>\n")
			continue
		}
		b.WriteString(top.Label + "\n")
		for _, it := range top.SubMenu.Items {
			switch {
			case it.Type == menu.SeparatorType:
				b.WriteString("  ---\n")
			case it.Accelerator != nil:
				b.WriteString("  " + it.Label + " [" + keys.Stringify(it.Accelerator, "linux") + "]\n")
			default:
				b.WriteString("  " + it.Label + "\n")
			}
		}
	}
	return b.String()
}

func TestAppMenu(t *testing.T) {
	const body = `File
  Import… [Ctrl+O]
  Open data folder
  ---
  Quit [Ctrl+Q]
`
	const help = `Help
  About Docent
  Open data folder
  Docent README
`
	for goos, want := range map[string]string{
		"linux":   body + help,
		"windows": body + help,
		"darwin":  "<role>\n" + body + "<role>\n" + help,
	} {
		t.Run(goos, func(t *testing.T) {
			if got := describe(appMenu(goos, menuActions{})); got != want {
				t.Errorf("menu:\n%s\nwant:\n%s", got, want)
			}
		})
	}
	// macOS gets its application and Edit menus (copy and paste go
	// through the menu there); Wails' Linux menu cannot build role menus.
	m := appMenu("darwin", menuActions{})
	if m.Items[0].Role != menu.AppMenuRole || m.Items[2].Role != menu.EditMenuRole {
		t.Errorf("darwin's roles: %v, %v", m.Items[0].Role, m.Items[2].Role)
	}
	for _, goos := range []string{"linux", "windows"} {
		for _, it := range appMenu(goos, menuActions{}).Items {
			if it.Role != 0 || it.SubMenu == nil {
				t.Errorf("%s: a top-level item Wails cannot build there: %+v", goos, it)
			}
		}
	}
}

func TestAppMenuActions(t *testing.T) {
	var ran []string
	record := func(name string) func() { return func() { ran = append(ran, name) } }
	m := appMenu("linux", menuActions{
		Import:         record("import"),
		OpenDataFolder: record("data folder"),
		Quit:           record("quit"),
		About:          record("about"),
		README:         record("readme"),
	})
	for _, top := range m.Items {
		for _, it := range top.SubMenu.Items {
			if it.Type == menu.SeparatorType {
				continue
			}
			if it.Click == nil {
				t.Errorf("%s > %s does nothing", top.Label, it.Label)
				continue
			}
			it.Click(&menu.CallbackData{MenuItem: it})
		}
	}
	want := []string{"import", "data folder", "quit", "about", "data folder", "readme"}
	if !slices.Equal(ran, want) {
		t.Errorf("clicking every item ran %v, want %v", ran, want)
	}
	// An action that is missing does nothing rather than panic.
	for _, top := range appMenu("linux", menuActions{}).Items {
		for _, it := range top.SubMenu.Items {
			if it.Click != nil {
				it.Click(&menu.CallbackData{MenuItem: it})
			}
		}
	}
}
