import './styles.css';

const app = document.getElementById('app')!;
app.textContent = 'Dashboard';
