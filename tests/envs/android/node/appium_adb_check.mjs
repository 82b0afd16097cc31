// Drives the served phone with appium-adb and prints one JSON object of what its methods returned.
// Usage: node appium_adb_check.mjs <adb server port> <device serial> <apk path>
import {ADB} from 'appium-adb';

const [port, serial, apk] = process.argv.slice(2);
const adb = await ADB.createADB({adbPort: Number(port), adbExecTimeout: 30000});
adb.setDeviceId(serial);
const out = {};
out.apiLevel = await adb.getApiLevel();
out.echo = (await adb.shell(['echo', 'hello'])).trim();
await adb.shell(['am', 'start', '-n', 'com.google.android.deskclock/com.android.deskclock.DeskClock']);
out.focused = await adb.getFocusedPackageAndActivity();
out.clockRunning = await adb.isAppRunning('com.google.android.deskclock');
out.nopeRunning = await adb.isAppRunning('com.example.nope');
await adb.setAirplaneMode(true);
out.airplaneOn = await adb.isAirplaneModeOn();
await adb.setAirplaneMode(false);
out.airplaneOff = await adb.isAirplaneModeOn();
await adb.setWifiState(false);
out.wifiOff = await adb.isWifiOn();
await adb.setWifiState(true);
out.wifiOn = await adb.isWifiOn();
await adb.setDataState(false);
out.dataOff = await adb.isDataOn();
await adb.setDataState(true);
await adb.setBluetoothOn(true);
out.bluetooth = (await adb.getSetting('global', 'bluetooth_on')).trim();
out.whitelist = await adb.getDeviceIdleWhitelist();
await adb.install(apk, {timeout: 60000});
out.installed = await adb.isAppInstalled('com.example.hello');
console.log(JSON.stringify(out));
