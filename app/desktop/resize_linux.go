//go:build (desktop || dev || bindings) && linux

package desktop

/*
#cgo pkg-config: gtk+-3.0
#include <gtk/gtk.h>

typedef struct {
	int width, height;
} docent_size;

// docent_resize_main_window resizes the application's window: the visible
// top-level window that is not a dialog over another (Wails makes one). It
// runs on GTK's main thread, as an idle callback.
static gboolean docent_resize_main_window(gpointer data) {
	docent_size *size = data;
	GList *windows = gtk_window_list_toplevels();
	for (GList *l = windows; l != NULL; l = l->next) {
		GtkWindow *window = GTK_WINDOW(l->data);
		if (gtk_window_get_window_type(window) == GTK_WINDOW_TOPLEVEL &&
			gtk_window_get_transient_for(window) == NULL &&
			gtk_widget_get_visible(GTK_WIDGET(window))) {
			gtk_window_resize(window, size->width, size->height);
		}
	}
	g_list_free(windows);
	g_free(size);
	return G_SOURCE_REMOVE;
}

static void docent_resize_later(int width, int height) {
	docent_size *size = g_new(docent_size, 1);
	size->width = width;
	size->height = height;
	g_idle_add(docent_resize_main_window, size);
}
*/
import "C"

import "context"

// resizeWindow resizes the window on GTK's main thread. Wails v2.9.2's
// WindowSetSize calls gtk_window_resize on the caller's goroutine, and GTK
// and Xlib must not be called from any thread but the main loop's.
// Idle callbacks run in the order they were added, so a WindowCenter or
// WindowSetPosition after this one comes after the resize.
func resizeWindow(_ context.Context, width, height int) {
	C.docent_resize_later(C.int(width), C.int(height))
}
