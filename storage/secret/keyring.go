package secret

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"

	gokeyring "github.com/zalando/go-keyring"

	"github.com/docent/docent/storage/envvar"
)

// ErrNotFound is a keyring's answer for an entry it does not have.
var ErrNotFound = gokeyring.ErrNotFound

// keyring is what Store needs of an OS keyring; tests give it a fake.
type keyring interface {
	Set(service, user, password string) error
	Get(service, user string) (string, error)
	Delete(service, user string) error
}

// osKeyring is the platform's keyring: the Secret Service (GNOME Keyring,
// KWallet) over D-Bus, the macOS Keychain, the Windows Credential Manager.
type osKeyring struct{}

func (osKeyring) Set(service, user, password string) error {
	return gokeyring.Set(service, user, password)
}

func (osKeyring) Get(service, user string) (string, error) {
	return gokeyring.Get(service, user)
}

func (osKeyring) Delete(service, user string) error {
	return gokeyring.Delete(service, user)
}

func keyringSetting() string { return strings.ToLower(strings.TrimSpace(envvar.Get(envvar.Keyring))) }

// keyringFromEnv is the OS keyring unless KeyringEnv says "off", or, on
// the Unixes that use the Secret Service, there is no session bus to
// reach it: then a headless machine (a server, CI) does not wait for a
// D-Bus that is not there, and the D-Bus library does not try to launch
// one.
func keyringFromEnv() keyring {
	switch keyringSetting() {
	case "off", "0", "false", "no", "file":
		return nil
	case "on", "1", "true", "yes":
		return osKeyring{}
	}
	switch runtime.GOOS {
	case "darwin", "windows":
		return osKeyring{}
	}
	if sessionBus() {
		return osKeyring{}
	}
	return nil
}

// sessionBus reports whether a D-Bus session bus is announced: its
// address in DBUS_SESSION_BUS_ADDRESS, or the socket systemd puts in
// XDG_RUNTIME_DIR. The Secret Service may still be missing; Seal then
// falls back to the key file.
func sessionBus() bool {
	if envvar.Get(envvar.DBusSessionBus) != "" {
		return true
	}
	dir := envvar.Get(envvar.XDGRuntimeDir)
	if dir == "" {
		return false
	}
	fi, err := os.Stat(filepath.Join(dir, "bus"))
	return err == nil && fi.Mode()&os.ModeSocket != 0
}
