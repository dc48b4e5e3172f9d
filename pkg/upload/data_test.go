package upload

import (
	"bytes"
	"encoding/base64"
	"io"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	for want, ins := range map[Kind][]string{
		KindInline: {"aGVsbG8=", "data:text/plain;base64,aGk=", "data:,hi", "",
			"/api/images/a.png"}, // not base64: refused when decoded
		KindProviderFileID: {"file-abc123"},
		KindURL:            {"https://example.com/a.png", "s3://bucket/key", "gs:x", "//cdn.example.com/a.png"},
	} {
		for _, in := range ins {
			if got := Classify(in); got != want {
				t.Errorf("Classify(%q) = %v, want %v", in, got, want)
			}
		}
	}
}

func TestInline(t *testing.T) {
	hello := base64.StdEncoding.EncodeToString([]byte("hello world"))
	bin := []byte{0xfb, 0xff, 0xbf, 0x00, 0x01}
	for _, tc := range []struct {
		name    string
		data    string
		ok      bool
		want    string // decoded
		encoded int64  // EncodedSize
		mime    string
	}{
		{"raw", hello, true, "hello world", 11, ""},
		{"whitespace", "aGVs\nbG8g\t d29y bGQ=", true, "hello world", 11, ""},
		{"url-safe", "-_-_AAEC", true, "\xfb\xff\xbf\x00\x01\x02", 6, ""},
		{"standard", base64.StdEncoding.EncodeToString(bin), true, string(bin), 5, ""},
		{"unpadded", "aGk", true, "hi", 2, ""},
		{"lone char dropped", "aGVsb", true, "hel", 3, ""},
		{"data url", "data:text/plain;base64,aGVsbG8=", true, "hello", 5, "text/plain"},
		{"data url upper", "data:image/png;BASE64,aGk=", true, "hi", 2, "image/png"},
		{"percent", "data:text/plain,caf%C3%A9%20au%20lait", true, "café au lait", 12, "text/plain"},
		{"percent literal utf8", "data:,café", true, "café", 5, ""},
		{"percent no type", "data:;charset=utf-8,a%2Cb", true, "a,b", 3, ""},
		{"empty", "", true, "", 0, ""},
		{"too much padding", "aGk===", false, "", 3, ""},
		{"padding inside", "aG=k", false, "", 3, ""},
		{"not base64", "/api/images/a.png!", false, "", 13, ""},
		{"no comma", "data:text/plain;base64", false, "", 22, ""},
		{"bad escape", "data:,100%", false, "", 4, ""},
		{"bad escape hex", "data:,%zz", false, "", 3, ""},
		{"lone continuation", "data:,%80", false, "", 1, ""},
		{"truncated sequence", "data:,%C3", false, "", 1, ""},
		{"escape then literal", "data:,%C3é", false, "", 3, ""},
		{"overlong", "data:,%C0%AF", false, "", 2, ""},
		{"surrogate", "data:,%ED%A0%80", false, "", 3, ""},
		{"non-ascii in base64", "aGk\u00e9", false, "", 3, ""},
		{"unicode space", "aG\u00a0k=", true, "hi", 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := ParseInline(tc.data)
			if d.MIMEType() != tc.mime {
				t.Errorf("MIMEType = %q, want %q", d.MIMEType(), tc.mime)
			}
			size, ok := d.Check()
			if ok != tc.ok {
				t.Fatalf("Check ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				if got := d.EncodedSize(); got != tc.encoded {
					t.Errorf("EncodedSize = %d, want %d", got, tc.encoded)
				}
				return
			}
			got, err := io.ReadAll(d.Reader())
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("decoded %q, want %q", got, tc.want)
			}
			if size != int64(len(got)) || d.EncodedSize() != size {
				t.Errorf("sizes: Check %d, EncodedSize %d, decoded %d", size, d.EncodedSize(), len(got))
			}
		})
	}
}

// TestInlineLarge decodes more than one buffer's worth, in pieces.
func TestInlineLarge(t *testing.T) {
	src := bytes.Repeat([]byte("0123456789abcdef\x00\xff"), 300000)
	enc := base64.StdEncoding.EncodeToString(src)
	var wrapped strings.Builder
	for i := 0; i < len(enc); i += 76 {
		wrapped.WriteString(enc[i:min(i+76, len(enc))])
		wrapped.WriteString("\r\n")
	}
	d := ParseInline("data:application/octet-stream;base64," + wrapped.String())
	if n, ok := d.Check(); !ok || n != int64(len(src)) {
		t.Fatalf("Check = %d, %v", n, ok)
	}
	got, err := io.ReadAll(d.Reader())
	if err != nil || !bytes.Equal(got, src) {
		t.Fatalf("decoded %d bytes, %v", len(got), err)
	}
}

func TestKey(t *testing.T) {
	if ParseInline("data:x;base64,aG k=").Key() != "aGk=" || ParseInline("aGk=").Key() != "aGk=" || ParseInline("data:,hi").Key() != "" {
		t.Error("Key")
	}
}
