/**
 * A self-signed certificate for 127.0.0.1 (valid until 2126) and its key, made for the fetch
 * group's TLS check only: no client trusts it, which is the point. Not a secret.
 */
export const UNTRUSTED_TLS = {
  key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgQ4llTw64+Rs6AaNt
jUU5eadUnrXraocRp9jhisQkTGihRANCAASZwzmzOFzke70aHC/FgRhxQTKESowv
u/TPg1CvTtpFSnBO0hSQ27BSEivxX+gaHDwWogYp/a2m3Jyqg4yqY2FG
-----END PRIVATE KEY-----
`,
  cert: `-----BEGIN CERTIFICATE-----
MIIBrDCCAVKgAwIBAgIUS5fHH/9ag/kSIjUS6GdF2Wc7Em4wCgYIKoZIzj0EAwIw
IjEgMB4GA1UEAwwXY29yZG9uIGNvbmZvcm1hbmNlIHRlc3QwIBcNMjYxMTI1MDIw
MzIwWhgPMjEyNjExMDEwMjAzMjBaMCIxIDAeBgNVBAMMF2NvcmRvbiBjb25mb3Jt
YW5jZSB0ZXN0MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEmcM5szhc5Hu9Ghwv
xYEYcUEyhEqML7v0z4NQr07aRUpwTtIUkNuwUhIr8V/oGhw8FqIGKf2tptycqoOM
qmNhRqNkMGIwHQYDVR0OBBYEFNuElxoON5LcIHqVhBgQ0xfpZiaXMB8GA1UdIwQY
MBaAFNuElxoON5LcIHqVhBgQ0xfpZiaXMA8GA1UdEwEB/wQFMAMBAf8wDwYDVR0R
BAgwBocEfwAAATAKBggqhkjOPQQDAgNIADBFAiA3ADUa8vXxfXTfWnfj8Z31kriw
+zZ+VgH18SnST4A0kAIhAMc11pwD+dN5JljelLriduRV2KDqUBNXG386VABbEPkt
-----END CERTIFICATE-----
`,
}
